// A name a user gave (account, token, channel, price group): shown in its own bidirectional isolate with any
// embedding, override or isolate control dropped, so it cannot reorder the text shown around it (names stored
// before the API refused these characters may still hold them).
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** The name as plain text: for attributes and <option> labels, where no <bdi> can go. */
export const plainName = (name: string): string => name.replace(BIDI_CONTROLS, '');

export function Name({ value }: { value: string }) {
  return <bdi class="user-name">{plainName(value)}</bdi>;
}
