// Content-filter rejections, whatever the upstream calls them: one rule every adapter asks, so each upstream's
// spelling maps to the one catalogue code (upstream_content_filtered). Known spellings: DashScope native
// `DataInspectionFailed` (and dotted variants such as `DataInspectionFailed.Output`), `IPInfringementSuspect`;
// compatible mode `data_inspection_failed` (as `code` or `type`); the messages-compatible path's error `type`;
// OpenAI-style `content_filter` / `content_policy_violation`; Kling envelope codes 1300 (policy) and 1301 (content
// safety). Names compare without case or separators; a dotted code counts when any part is one
// (`InternalError.Algo.DataInspectionFailed`). An error whose code is generic but whose message carries the DashScope
// code (`<400> InternalError.Algo.DataInspectionFailed: …`, as a relayed or messages-style error may) counts too.

const NAMES = new Set([
  'datainspectionfailed',
  'ipinfringementsuspect',
  'contentfilter',
  'contentfiltered',
  'contentpolicyviolation',
  'inappropriatecontent',
]);
const NUMERIC = new Set([1300, 1301]);

const normalise = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

// The DashScope names specific enough to be recognised inside a message's text.
const IN_TEXT = /\b(?:[A-Za-z]+\.)*(?:DataInspectionFailed|data_inspection_failed|IPInfringementSuspect)\b/;

/** Does this upstream error code (a name, or Kling's number) say the content filter refused the request? */
export function isContentFilterCode(code: string | number | null | undefined): boolean {
  if (typeof code === 'number') return NUMERIC.has(code);
  if (typeof code !== 'string' || code === '') return false;
  if (/^\d+$/.test(code)) return NUMERIC.has(Number(code));
  return code.split('.').some((part) => NAMES.has(normalise(part)));
}

/** Does an error message's text carry a DashScope content-filter code? */
export function mentionsContentFilter(message: string | null | undefined): boolean {
  return typeof message === 'string' && IN_TEXT.test(message);
}

/** Any of an error answer's codes (code, type …) says so. */
export function isContentFiltered(...codes: Array<string | number | null | undefined>): boolean {
  return codes.some(isContentFilterCode);
}
