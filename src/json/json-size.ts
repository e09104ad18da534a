// What a JSON text costs to parse and walk, measured on the text before JSON.parse sees it: how many values it holds,
// and how much of it is text rather than inline media.
import { stringEnd } from './json-text.ts';

/**
 * Does the JSON text hold more than `max` values inside arrays and objects? Each such value but the first of its
 * container follows a `,`, and each container opens with `{` or `[`: those three, counted outside strings, bound the
 * values from above and below within one per container. Each is one character, so a text of at most `max`
 * characters cannot; a longer one takes one pass that skips strings with indexOf and stops at the bound.
 */
export function hasMoreValuesThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return false; // not JSON: the parser says so
      i = end;
    } else if ((c === 44 /* , */ || c === 91 /* [ */ || c === 123) /* { */ && ++n > max) {
      return true;
    }
  }
  return false;
}

/**
 * The characters of a JSON text outside its inline media: strings that are data URLs (`"data:…"`, image and file
 * parts of every family) and the string values of `data` members (base64 sources of messages-style blocks, audio
 * input). Only a quote that opens a string token counts: one after `:`, `,` or `[` (whitespace between). A quote
 * inside a string is escaped, so it follows a backslash, and text that merely mentions `"data:` is not media.
 */
export function textOutsideMedia(text: string): number {
  let media = 0;
  for (let q = text.indexOf('"data'); q >= 0; q = text.indexOf('"data', q + 1)) {
    const before = text.charCodeAt(lastNonSpace(text, q - 1));
    const next = text.charCodeAt(q + 5);
    if (next === 58 /* : */ && (before === 58 || before === 44 /* , */ || before === 91) /* [ */) {
      const end = stringEnd(text, q);
      if (end < 0) break;
      // A key spelt as a data URL is not media.
      if (text.charCodeAt(firstNonSpace(text, end + 1)) !== 58) media += end - q + 1;
      q = end;
    } else if (next === 34 /* " */ && (before === 123 /* { */ || before === 44)) {
      const colon = firstNonSpace(text, q + 6);
      if (text.charCodeAt(colon) !== 58) continue;
      const v = firstNonSpace(text, colon + 1);
      if (text.charCodeAt(v) !== 34) continue;
      const end = stringEnd(text, v);
      if (end < 0) break;
      media += end - v + 1;
      q = end;
    }
  }
  return text.length - media;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function lastNonSpace(text: string, i: number): number {
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  return i;
}

function firstNonSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}
