// The model list as Anthropic's API gives it (GET /v1/models for a caller that sends anthropic-version: the
// @anthropic-ai/sdk): `{data: [{type: "model", id, display_name, created_at}], has_more, first_id, last_id}`, paged
// by `limit` (1–1000, default 20), `after_id` and `before_id` in the list's order.
import { GatewayError } from '../errors/gateway-error.ts';

export interface AnthropicModel {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

export interface AnthropicModelPage {
  data: AnthropicModel[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

export interface AnthropicPaging {
  limit: number;
  afterId?: string | undefined;
  beforeId?: string | undefined;
}

/** One model as Anthropic describes one; `createdAt`: ISO 8601. */
export function anthropicModel(id: string, createdAt: string): AnthropicModel {
  return { type: 'model', id, display_name: id, created_at: createdAt };
}

/** The page of `models` (in list order) that `p` asks for; an unknown cursor id is a 400 naming it. */
export function anthropicModelPage(models: readonly AnthropicModel[], p: AnthropicPaging): AnthropicModelPage {
  const at = (id: string, param: string) => {
    const i = models.findIndex((m) => m.id === id);
    if (i < 0) throw new GatewayError('invalid_parameter', `${param} names no model of this list`, { param });
    return i;
  };
  let start = 0;
  let end = models.length;
  if (p.afterId !== undefined) start = at(p.afterId, 'after_id') + 1;
  if (p.beforeId !== undefined) end = at(p.beforeId, 'before_id');
  // before_id pages backwards: the `limit` models just before it.
  const slice = p.beforeId !== undefined ? models.slice(Math.max(start, end - p.limit), end) : models.slice(start, end);
  const data = slice.slice(0, p.limit);
  const has_more = p.beforeId !== undefined ? end - data.length > start : start + data.length < end;
  return { data, has_more, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
