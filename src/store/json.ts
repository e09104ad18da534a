/** Parse a JSON text column; upstream/stored JSON is `unknown` until checked. */
export function parseJson<T = unknown>(text: string | null | undefined): T | null {
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
