// Content-filter rejections, whatever the upstream calls them: one rule every adapter asks, so each upstream's
// spelling maps to the one catalogue code (upstream_content_filtered). Known spellings: DashScope native
// `DataInspectionFailed` (and dotted variants such as `DataInspectionFailed.Output`), `IPInfringementSuspect`;
// compatible mode `data_inspection_failed` (as `code` or `type`); the messages-compatible path's error `type`;
// OpenAI-style `content_filter` / `content_policy_violation`; Kling envelope codes 1300 (policy) and 1301 (content
// safety). Names compare without case or separators.

const NAMES = new Set(['datainspectionfailed', 'ipinfringementsuspect', 'contentfilter', 'contentfiltered', 'contentpolicyviolation', 'inappropriatecontent']);
const NUMERIC = new Set([1300, 1301]);

function normalise(name: string): string {
  // `DataInspectionFailed.Output` counts as `DataInspectionFailed`: the part before the first dot names the class.
  const dot = name.indexOf('.');
  return (dot < 0 ? name : name.slice(0, dot)).toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Does this upstream error code (a name, or Kling's number) say the content filter refused the request? */
export function isContentFilterCode(code: string | number | null | undefined): boolean {
  if (typeof code === 'number') return NUMERIC.has(code);
  if (typeof code !== 'string' || code === '') return false;
  if (/^\d+$/.test(code)) return NUMERIC.has(Number(code));
  return NAMES.has(normalise(code));
}

/** Any of an error answer's codes (code, type …) says so. */
export function isContentFiltered(...codes: Array<string | number | null | undefined>): boolean {
  return codes.some(isContentFilterCode);
}
