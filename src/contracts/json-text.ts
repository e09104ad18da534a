// Small scans over JSON text (text that JSON.parse accepts or is about to be given), shared by the body parser
// and the upstream splice.

/** The index of the quote closing the string that opens at `open`; -1 if none. */
export function stringEnd(text: string, open: number): number {
  let q = text.indexOf('"', open + 1);
  while (q >= 0) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 92 /* \ */) slashes++;
    if ((slashes & 1) === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/**
 * Does the JSON text nest arrays and objects deeper than `max`? Most bodies hold fewer than `max` opening brackets
 * in all, which settles it with a few substring searches; otherwise one pass that skips strings (brackets inside
 * strings do not nest) measures the depth.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let openers = 0;
  for (let i = text.indexOf('{'); i >= 0 && openers <= max; i = text.indexOf('{', i + 1)) openers++;
  for (let i = text.indexOf('['); i >= 0 && openers <= max; i = text.indexOf('[', i + 1)) openers++;
  if (openers <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return false; // not JSON: the parser says so
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}
