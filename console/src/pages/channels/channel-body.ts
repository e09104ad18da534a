// What the channel form sends: every field on creation, only those changed on an edit, and the keys typed (a blank
// key is not sent, so the stored one stays). Plain data, apart from the form, so a test reads it without a browser.

/** The channel fields the form edits, as GET /admin/channels answers them. */
export interface EditedChannel {
  id: string;
  name: string;
  kind: string;
  base_url: string;
  models: string[] | null;
  priority: number;
  weight: number;
  account?: string | null;
}

export type Text = {
  name: string;
  base_url: string;
  models: string;
  priority: string;
  weight: string;
  account: string;
};

export const textOf = (c: EditedChannel | null): Text => ({
  name: c?.name ?? '',
  base_url: c?.base_url ?? '',
  models: c?.models?.join(', ') ?? '',
  priority: String(c?.priority ?? 0),
  weight: String(c?.weight ?? 1),
  account: c?.account ?? '',
});

const modelList = (s: string): string[] | null => {
  const list = s
    .split(/[\s,]+/)
    .map((m) => m.trim())
    .filter(Boolean);
  return list.length > 0 ? list : null;
};

/** The body to send: every field on creation; on an edit only those that differ from the channel's. */
export function bodyOf(
  t: Text,
  keys: Record<string, string>,
  was: EditedChannel | null,
  kind: string,
): Record<string, unknown> {
  const before = textOf(was);
  const body: Record<string, unknown> = {};
  const changed = (k: keyof Text) => was === null || t[k].trim() !== before[k].trim();
  if (was === null) body.kind = kind;
  if (changed('name')) body.name = t.name.trim();
  if (t.base_url.trim() !== '' && changed('base_url')) body.base_url = t.base_url.trim();
  if (changed('models')) body.models = modelList(t.models);
  if (changed('priority')) body.priority = Number(t.priority);
  if (changed('weight')) body.weight = Number(t.weight);
  if (changed('account') && (was !== null || t.account.trim() !== ''))
    body.account = t.account.trim() === '' ? null : t.account.trim();
  for (const [field, v] of Object.entries(keys)) if (v !== '') body[field] = v;
  return body;
}
