// Scans of the compatible-mode chat stream's byte strings (one char per UTF-8 byte, as latin1 decodes): where the
// usage chunk is, how many characters of output a run of chunks holds, and the model name renamed in place.
// An upstream that spaces its JSON (`"usage": {`) is recognised too, like the spaced model-name rename below.
export const hasUsage = (d: string) => d.includes('"usage":{') || d.includes('"usage": {');

// Searches start from a letter, not from `"`: JSON text has a quote every few characters, and a search whose
// first character is a quote stops at each of them (V8 looks for the first character, then compares the rest).
// The character before a hit is checked after.

/** Position of the next `"usage":{` (or `"usage": {`) at or after `from`; -1 when none. */
export function nextUsage(text: string, from: number): number {
  let i = text.indexOf('usage":', from + 1);
  while (i >= 0) {
    let j = i + 7;
    if (text.charCodeAt(j) === 32) j++;
    if (text.charCodeAt(i - 1) === 34 && text.charCodeAt(j) === 123) return i - 1;
    i = text.indexOf('usage":', j);
  }
  return -1;
}

/**
 * Characters of output in a run of chunks: every `"content":"…"` and `"reasoning_content":"…"` value, and every
 * tool call's `"arguments":"…"` (model output too: a stream that only calls a tool is not free when the upstream
 * reports no usage).
 */
export function deltaChars(text: string): number {
  let total = 0;
  let at = text.indexOf('content":"');
  while (at >= 0) {
    const own =
      text.charCodeAt(at - 1) === 34 || (text.charCodeAt(at - 11) === 34 && text.startsWith('reasoning_', at - 10));
    const chars = stringChars(text, at + 10);
    if (own) total += chars;
    at = text.indexOf('content":"', stringEndAt);
  }
  at = text.indexOf('arguments":"');
  while (at >= 0) {
    const chars = stringChars(text, at + 12);
    if (text.charCodeAt(at - 1) === 34) total += chars;
    at = text.indexOf('arguments":"', stringEndAt);
  }
  return total;
}

/** Where the string stringChars last read ends (its closing quote): a variable, not an object per value. */
let stringEndAt = 0;

/**
 * The length of the JSON string whose text starts at `start`, as written (an escape as its characters); its end is
 * left in stringEndAt. The text is a byte string (one char per UTF-8 byte): a character is counted at its first
 * byte, in UTF-16 units as a decoded string has them (a four-byte sequence is two), continuation bytes not at all.
 */
function stringChars(text: string, start: number): number {
  let i = start;
  let wide = 0; // UTF-16 units minus bytes, for the non-ASCII characters
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) break;
    else if (c >= 0x80) wide += c < 0xc0 ? -1 : c >= 0xf0 ? 1 : 0;
  }
  stringEndAt = i;
  return i - start + wide;
}

// Buffer's own latin1 decoder (what toString('latin1') calls, minus its argument handling).
export type Latin1Buffer = Buffer & { latin1Slice(start: number, end: number): string };

/** A byte string (one char per byte, as latin1 decodes) of a text's UTF-8 form, and back. */
export const bytesOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
export const textOf = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/**
 * Every `"model":"<from>"` (or `"model": "<from>"`) in `text`, renamed. The search is for the name itself —
 * it starts with a letter, which JSON text holds far fewer of than quotes — and the key before it is checked after.
 */
export function renameModels(text: string, from: string, compact: string, spaced: string): string {
  let i = text.indexOf(from);
  if (i < 0) return text;
  let out = '';
  let done = 0; // text before this is in `out`
  while (i >= 0) {
    const end = i + from.length;
    if (text.charCodeAt(end) === 34 && text.charCodeAt(i - 1) === 34) {
      if (text.startsWith('"model":', i - 9) && i - 9 >= done) {
        out += text.slice(done, i - 9) + compact;
        done = end + 1;
      } else if (text.startsWith('"model": ', i - 10) && i - 10 >= done) {
        out += text.slice(done, i - 10) + spaced;
        done = end + 1;
      }
    }
    i = text.indexOf(from, end);
  }
  return done === 0 ? text : out + text.slice(done);
}
