// Cheap edits on upstream JSON text, so pass-through answers are not parsed and re-serialised whole.
// Safe because inside a JSON string every `"` is escaped: the byte sequence `"key":` (quote directly
// followed by a colon) can only be a real object key, never text inside a value.
import { pairMemo, quotedName } from '../json/name-memo.ts';

/** The JSON object value of the last `"key":{…}` in `text`, parsed; null when absent or not an object. */
export function objectAfterKey(text: string, key: string): Record<string, unknown> | null {
  const needle = `"${key}":`;
  let at = text.lastIndexOf(needle);
  if (at < 0) return null;
  at += needle.length;
  while (
    at < text.length &&
    (text.charCodeAt(at) === 32 ||
      text.charCodeAt(at) === 10 ||
      text.charCodeAt(at) === 13 ||
      text.charCodeAt(at) === 9)
  )
    at++;
  if (text.charCodeAt(at) !== 123 /* { */) return null;
  return balancedByBraces(text, at) ?? objectByScan(text, at);
}

/**
 * The object at `at` found with substring searches: the first `}` after which the braces since `at` balance, if
 * JSON.parse accepts that slice. A slice that parses is the whole object (a JSON value has no proper prefix that is
 * itself a complete value); a brace inside a string makes the slice fail to parse or never balance, and the
 * character scan decides instead. Usage objects hold no strings with braces, so the scan almost never runs.
 */
function balancedByBraces(text: string, at: number): Record<string, unknown> | null {
  let opens = 1;
  let closes = 0;
  let nextOpen = text.indexOf('{', at + 1);
  for (let end = text.indexOf('}', at); end >= 0; end = text.indexOf('}', end + 1)) {
    while (nextOpen >= 0 && nextOpen < end) {
      opens++;
      nextOpen = text.indexOf('{', nextOpen + 1);
    }
    if (++closes < opens) continue;
    return objectIn(text, at, end + 1);
  }
  return null;
}

/** `text.slice(from, to)` parsed, if it is a JSON object. */
function objectIn(text: string, from: number, to: number): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text.slice(from, to));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function objectByScan(text: string, at: number): Record<string, unknown> | null {
  let depth = 0;
  let inStr = false;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inStr) {
      if (c === 92 /* \ */) i++;
      else if (c === 34) inStr = false;
      continue;
    }
    if (c === 34) inStr = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return objectIn(text, at, i + 1);
  }
  return null;
}

/** The texts renameModel looks for and writes, per model pair. */
const renaming = pairMemo((from, to) => ({
  compact: `"model":"${from}"`,
  spaced: `"model": "${from}"`,
  compactTo: `"model":${quotedName(to)}`,
  spacedTo: `"model": ${quotedName(to)}`,
}));

/** Replace the first `"model":"<from>"` with the public name (no-op when the names are equal). */
export function renameModel(text: string, from: string, to: string): string {
  if (from === to) return text;
  const r = renaming(from, to);
  const i = text.indexOf(r.compact);
  if (i >= 0) return text.slice(0, i) + r.compactTo + text.slice(i + r.compact.length);
  const j = text.indexOf(r.spaced);
  if (j >= 0) return text.slice(0, j) + r.spacedTo + text.slice(j + r.spaced.length);
  return text;
}

/** Sum of the lengths of every string value of `"key":"…"` (delta text in a chunk), without parsing. */
export function stringValueLength(text: string, key: string): number {
  const needle = `"${key}":"`;
  let total = 0;
  let at = text.indexOf(needle);
  while (at >= 0) {
    let i = at + needle.length;
    const start = i;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 92) i++;
      else if (c === 34) break;
    }
    total += i - start;
    at = text.indexOf(needle, i);
  }
  return total;
}

export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
