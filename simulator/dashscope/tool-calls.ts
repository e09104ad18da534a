// Function calling in compatible-mode chat, as OpenAI's wire has it: given `tools`, the simulated model calls one
// — the one `tool_choice` names, else the first — unless `tool_choice` is "none" or the conversation already ends
// with a tool's result (then it answers in text). Its arguments fill the function's parameters from the prompt.

export interface SimToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text, as the wire carries them. */
  arguments: string;
}

type Fn = { name?: unknown; parameters?: { properties?: Record<string, { type?: unknown }> } };

function functionsOf(tools: unknown): Fn[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => {
    const f = (t as { type?: unknown; function?: unknown } | null)?.function;
    return (t as { type?: unknown }).type === 'function' &&
      typeof f === 'object' &&
      f !== null &&
      typeof (f as Fn).name === 'string'
      ? [f as Fn]
      : [];
  });
}

/** The call the simulated model makes for this request, or null when it answers in text. */
export function toolCallFor(
  body: { tools?: unknown; tool_choice?: unknown; messages: unknown[] },
  topic: string,
  id: string,
): SimToolCall | null {
  const fns = functionsOf(body.tools);
  if (fns.length === 0 || body.tool_choice === 'none') return null;
  const last = body.messages[body.messages.length - 1] as { role?: unknown } | null;
  if (last?.role === 'tool') return null;
  const named = (body.tool_choice as { function?: { name?: unknown } } | null)?.function?.name;
  const fn = fns.find((f) => f.name === named) ?? fns[0]!;
  const args: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(fn.parameters?.properties ?? {})) {
    args[k] = p?.type === 'number' || p?.type === 'integer' ? 1 : p?.type === 'boolean' ? true : topic;
  }
  return { id: `call_${id}`, name: fn.name as string, arguments: JSON.stringify(args) };
}

/** The arguments text in the pieces a stream sends them in (a few characters each, as models produce them). */
export function argumentPieces(args: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += size) out.push(args.slice(i, i + size));
  return out;
}
