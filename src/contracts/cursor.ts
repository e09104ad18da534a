// Opaque paging cursors of the admin lists: a row's position in the list's order, as base64url JSON. Clients pass
// back `next_cursor` as it is; a cursor that does not decode to the expected shape is a 400 naming the parameter.
import { GatewayError } from '../errors/gateway-error.ts';

export function encodeCursor(parts: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The cursor's parts, checked against `shape` ('n' an integer ≥ 0, 's' a string of at most 200 characters). */
export function decodeCursor(text: string, shape: ReadonlyArray<'n' | 's'>, param = 'cursor'): Array<string | number> {
  const bad = () =>
    new GatewayError(
      'invalid_parameter',
      `${param} is not a cursor this list gave out (pass next_cursor back as it is)`,
      { param },
    );
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parts) || parts.length !== shape.length) throw bad();
  shape.forEach((kind, i) => {
    const v: unknown = parts[i];
    const ok = kind === 'n' ? Number.isSafeInteger(v) && (v as number) >= 0 : typeof v === 'string' && v.length <= 200;
    if (!ok) throw bad();
  });
  return parts as Array<string | number>;
}
