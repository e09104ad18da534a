// One redaction step for everything that leaves the process (responses and log lines):
// upstream keys, callback secrets, JWTs, bearer credentials and upstream/internal URLs are removed.

const secrets = new Set<string>();
let secretsVersion = 0;

/** Register a secret value (upstream key, admin key …) so it is scrubbed wherever it appears. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 6 && !secrets.has(value)) {
    secrets.add(value);
    secretsVersion++;
  }
}

/** Changes whenever a secret is registered: a cache of scrubbed values is valid only while it stays the same. */
export function redactionVersion(): number {
  return secretsVersion;
}

const PATTERNS: Array<[RegExp, string]> = [
  // JWTs (header.payload.signature, base64url)
  [/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, '[redacted-jwt]'],
  // Bearer credentials
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
  // DashScope-style keys
  [/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted-key]'],
  // Standard Webhooks secrets (a token's callback secret)
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, '[redacted-key]'],
  // Any URL: upstream hosts and internal addresses must not reach clients.
  [/\b(?:https?|wss?|oss):\/\/[^\s"'<>)]+/gi, '[redacted-url]'],
  // Bare upstream hostnames
  [/\b[a-z0-9.-]*(?:aliyuncs\.com|klingai\.com|dashscope[a-z0-9.-]*)\b/gi, '[redacted-host]'],
];

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join('[redacted]');
  }
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}

const SECRET_ANCHORS = /eyJ|bearer|sk-|whsec_/i;

/** Redact without touching URLs: for log lines where our own paths are useful. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join('[redacted]');
  }
  // One scan for the four patterns' literal anchors first: most log lines contain none of them.
  if (!SECRET_ANCHORS.test(out)) return out;
  return out
    .replace(PATTERNS[0]![0], '[redacted-jwt]')
    .replace(PATTERNS[1]![0], '$1 [redacted]')
    .replace(PATTERNS[2]![0], '[redacted-key]')
    .replace(PATTERNS[3]![0], '[redacted-key]');
}
