// Family A request fields a price depends on beyond mode and duration — sound, a resolution, multi-shot and named
// voices — read as the model's catalogue data allows them (VidxEndpoint: fields, resolutions, maxShots). Each bad
// value is refused naming its field, before any hold; a field the model does not take is refused earlier
// (refuseUntakenFields).
import type { VidxEndpoint } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isObject, type JsonObject } from '../json/json.ts';
import type { VideoTier } from '../vocabulary/usage.ts';
import { charLength, PROMPT_MAX } from './vidx.ts';

export const SHOT_TYPES = ['customize', 'intelligence'] as const;
export const DEFAULT_MAX_SHOTS = 6;

/** What of a family A request its price depends on (besides mode and seconds). */
export interface PricedFields {
  sound?: 'on' | 'off';
  resolution?: VideoTier;
  /** Shots of a multi-shot task (multi_prompt's length; 1 when the upstream picks them: `intelligence`). */
  shots?: number;
  /** The body names a voice (voice_list). */
  voice?: boolean;
}

const invalid = (message: string, param: string) => new GatewayError('invalid_parameter', message, { param });
const given = (v: unknown) => v !== undefined && v !== null;

function readShots(o: JsonObject, rules: VidxEndpoint, duration: number): number | undefined {
  if (!given(o.multi_shot)) {
    for (const k of ['shot_type', 'multi_prompt']) if (given(o[k])) throw invalid(`${k} needs multi_shot: true`, k);
    return undefined;
  }
  if (typeof o.multi_shot !== 'boolean') throw invalid('multi_shot must be a boolean', 'multi_shot');
  if (!o.multi_shot) {
    for (const k of ['shot_type', 'multi_prompt']) if (given(o[k])) throw invalid(`${k} needs multi_shot: true`, k);
    return undefined;
  }
  const type = o.shot_type ?? 'customize';
  if (typeof type !== 'string' || !(SHOT_TYPES as readonly string[]).includes(type))
    throw invalid(`shot_type must be one of ${SHOT_TYPES.join(', ')}`, 'shot_type');
  if (type === 'intelligence') {
    if (given(o.multi_prompt)) throw invalid('multi_prompt is only taken with shot_type customize', 'multi_prompt');
    return 1;
  }
  const max = rules.maxShots ?? DEFAULT_MAX_SHOTS;
  const list = o.multi_prompt;
  if (!Array.isArray(list) || list.length === 0 || list.length > max)
    throw invalid(`multi_prompt must be an array of 1 to ${max} shots`, 'multi_prompt');
  let total = 0;
  list.forEach((shot, i) => {
    const at = `multi_prompt[${i}]`;
    if (!isObject(shot)) throw invalid(`${at} must be an object {index, prompt, duration}`, at);
    if (shot.index !== i + 1) throw invalid(`${at}.index must be ${i + 1}`, `${at}.index`);
    if (typeof shot.prompt !== 'string' || shot.prompt.trim() === '' || charLength(shot.prompt) > PROMPT_MAX)
      throw invalid(`${at}.prompt must be a non-empty string of at most ${PROMPT_MAX} characters`, `${at}.prompt`);
    if (typeof shot.duration !== 'string' || !/^[1-9]\d?$/.test(shot.duration))
      throw invalid(`${at}.duration must be a string of whole seconds such as "3"`, `${at}.duration`);
    total += Number(shot.duration);
  });
  if (total !== duration)
    throw invalid(`multi_prompt durations must add up to the duration (${duration}), got ${total}`, 'multi_prompt');
  return list.length;
}

/** The priced fields of a family A body, as the model's rules allow them (each refusal names its field). */
export function readPricedFields(o: JsonObject, rules: VidxEndpoint, duration: number): PricedFields {
  const out: PricedFields = {};
  if (given(o.sound)) {
    if (o.sound !== 'on' && o.sound !== 'off') throw invalid('sound must be on or off', 'sound');
    out.sound = o.sound;
  }
  if (given(o.resolution)) {
    const allowed = rules.resolutions ?? [];
    if (typeof o.resolution !== 'string' || !allowed.includes(o.resolution))
      throw invalid(`resolution must be one of ${allowed.join(', ')}`, 'resolution');
    out.resolution = o.resolution as VideoTier;
  }
  const shots = readShots(o, rules, duration);
  if (shots !== undefined) out.shots = shots;
  if (given(o.voice_list)) {
    const v = o.voice_list;
    if (
      !Array.isArray(v) ||
      v.length === 0 ||
      !v.every((x) => isObject(x) && typeof x.voice_id === 'string' && x.voice_id !== '')
    )
      throw invalid('voice_list must be a non-empty array of {voice_id}', 'voice_list');
    out.voice = true;
  }
  return out;
}

/** The same, as the task's price asks it (VideoAsk's extras). */
export function pricedAsk(p: PricedFields): {
  sound?: boolean;
  voice?: boolean;
  shots?: number;
  resolution?: VideoTier;
} {
  return {
    ...(p.sound === 'on' ? { sound: true } : {}),
    ...(p.voice ? { voice: true } : {}),
    ...(p.shots !== undefined ? { shots: p.shots } : {}),
    ...(p.resolution ? { resolution: p.resolution } : {}),
  };
}
