// Model prices in the console: a price as readable text, its amounts as form fields in units, and the price rebuilt
// from the fields. Amounts are integer micro-units (1 unit = 1,000,000); the page reads and writes units, converted
// exactly (no floating point), so what the operator typed is what is stored.
import { num, units } from './format.ts';
import type { Price, TokenPriceTier as TokenTier } from '../../src/vocabulary/price.ts';

export type { Price, TokenPriceTier as TokenTier } from '../../src/vocabulary/price.ts';

export const UNIT_TEXT: Record<Price['unit'], string> = {
  tokens: 'per 1,000 tokens',
  image: 'per image',
  'video-second': 'per second of video',
  'video-mode-second': 'per second of video, by mode',
  video: 'per second of video, by tier, with surcharges',
};

/** A video price's amounts beside its per-second tiers: label, and the words after the amount in its text. */
const VIDEO_EXTRAS = [
  ['soundPerSecond', 'Sound, per second (surcharge)', 'sound +', '/s'],
  ['voicePerSecond', 'Named voice, per second (surcharge)', 'voice +', '/s'],
  ['inputPerSecond', 'Per second of input video', 'input video', '/s'],
  ['perShot', 'Per shot', 'per shot', ''],
  ['perRun', 'Per run', 'per run', ''],
] as const;

function videoLines(p: Extract<Price, { unit: 'video' }>): string[] {
  const lines = [
    Object.entries(p.perSecond)
      .map(([k, v]) => `${k} ${units(v)}`)
      .join(' · '),
  ];
  const extras = VIDEO_EXTRAS.filter(([k]) => p[k] !== undefined).map(
    ([k, , text, per]) => `${text} ${units(p[k]!)}${per}`,
  );
  if (extras.length > 0) lines.push(extras.join(' · '));
  if (p.basis === 'input+output') lines.push('(input + output seconds)');
  return lines;
}

function tierName(tiers: TokenTier[], i: number): string {
  if (tiers.length === 1) return '';
  const max = tiers[i]!.maxInputTokens;
  return max === null
    ? `above ${num(tiers[i - 1]?.maxInputTokens ?? 0)} input tokens`
    : `up to ${num(max)} input tokens`;
}

/** The price as short lines of text, amounts in units. */
export function priceLines(p: Price | null): string[] {
  if (!p) return ['none'];
  switch (p.unit) {
    case 'tokens':
      return p.tiers.map((t, i) => {
        const name = tierName(p.tiers, i);
        const parts = [`input ${units(t.inputPer1k)}`, `output ${units(t.outputPer1k)}`];
        if (t.cachedInputPer1k !== undefined) parts.push(`cached ${units(t.cachedInputPer1k)}`);
        if (t.cacheCreationPer1k !== undefined) parts.push(`cache write ${units(t.cacheCreationPer1k)}`);
        return `${name ? `${name}: ` : ''}${parts.join(' · ')}`;
      });
    case 'image':
      return [units(p.perImage)];
    case 'video-second':
      return [
        `720p ${units(p.perSecond['720p'])} · 1080p ${units(p.perSecond['1080p'])}`,
        `(${p.basis === 'input+output' ? 'input + output seconds' : 'output seconds'})`,
      ];
    case 'video-mode-second':
      return [`std ${units(p.perSecond.std)} · pro ${units(p.perSecond.pro)}`];
    case 'video':
      return videoLines(p);
  }
}

/** One amount of a price as a form field: its path in the price, its group (a token tier), label and micro-units. */
export interface PriceField {
  path: string;
  /** The token tier it belongs to ('' when the price has one). */
  group: string;
  label: string;
  micro: number | undefined;
  /** May be left empty (the input rate applies). */
  optional?: boolean;
}

export function priceFields(p: Price): PriceField[] {
  const one = (path: string, label: string, micro: number): PriceField => ({ path, group: '', label, micro });
  switch (p.unit) {
    case 'tokens':
      return p.tiers.flatMap((t, i) => {
        const name = tierName(p.tiers, i);
        const group = name ? `${name[0]!.toUpperCase()}${name.slice(1)}` : '';
        return [
          { path: `tiers.${i}.inputPer1k`, group, label: 'Input, per 1,000 tokens', micro: t.inputPer1k },
          { path: `tiers.${i}.outputPer1k`, group, label: 'Output, per 1,000 tokens', micro: t.outputPer1k },
          {
            path: `tiers.${i}.cachedInputPer1k`,
            group,
            label: 'Cached input (empty = input rate)',
            micro: t.cachedInputPer1k,
            optional: true,
          },
          {
            path: `tiers.${i}.cacheCreationPer1k`,
            group,
            label: 'Cache write (empty = input rate)',
            micro: t.cacheCreationPer1k,
            optional: true,
          },
        ];
      });
    case 'image':
      return [one('perImage', 'Per image', p.perImage)];
    case 'video-second':
      return [
        one('perSecond.720p', 'Per second at 720p', p.perSecond['720p']),
        one('perSecond.1080p', 'Per second at 1080p', p.perSecond['1080p']),
      ];
    case 'video-mode-second':
      return [
        one('perSecond.std', 'Per second, std mode', p.perSecond.std),
        one('perSecond.pro', 'Per second, pro mode', p.perSecond.pro),
      ];
    case 'video':
      return [
        ...Object.entries(p.perSecond).map(([k, v]) => one(`perSecond.${k}`, `Per second at ${k}`, v)),
        ...VIDEO_EXTRAS.map(([k, label]) => ({ ...one(k, `${label} (empty = none)`, 0), micro: p[k], optional: true })),
      ];
  }
}

/** The price with the fields' amounts put in (undefined removes an optional amount); tiers and basis are kept. */
export function withAmounts(p: Price, amounts: Record<string, number | undefined>): Price {
  const out = JSON.parse(JSON.stringify(p)) as Record<string, unknown>;
  for (const [path, v] of Object.entries(amounts)) {
    const keys = path.split('.');
    let at = out as Record<string, unknown>;
    for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
    const last = keys[keys.length - 1]!;
    if (v === undefined) delete at[last];
    else at[last] = v;
  }
  return out as unknown as Price;
}

/** Units as typed ("0.25", "3", "0.000001") to exact micro-units; null when it is not such a number. */
export function toMicro(text: string): number | null {
  const m = /^(\d{1,7})(?:\.(\d{0,6}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
}

/** Micro-units as an input's value in units, exact. */
export function fromMicro(micro: number | undefined): string {
  if (micro === undefined) return '';
  const frac = String(micro % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${Math.floor(micro / 1_000_000)}${frac ? `.${frac}` : ''}`;
}

/** The fields' typed values as amounts for withAmounts (an empty optional one removed), or the first field's error. */
export function amountsOf(
  fields: PriceField[],
  values: Record<string, string>,
): { amounts: Record<string, number | undefined> } | { error: string } {
  const amounts: Record<string, number | undefined> = {};
  for (const f of fields) {
    const text = (values[f.path] ?? '').trim();
    if (text === '' && f.optional) {
      amounts[f.path] = undefined;
      continue;
    }
    const micro = toMicro(text);
    if (micro === null)
      return {
        error: `${f.group ? `${f.group}, ` : ''}${f.label}: enter a number of units with at most 6 decimals (e.g. 0.25)`,
      };
    amounts[f.path] = micro;
  }
  return { amounts };
}
