// OpenAPI of video model discovery: GET /v1/videos/models, and the `video` block of a video model in
// GET /v1/models/{model} (core/video-discovery.ts).
import { arr, familyB, int, obj, ok, ref, str, type Operation, type Schema } from './schema.ts';

const micro = (description: string): Schema => ({ type: 'integer', minimum: 0, description });
const seconds = arr(int(), 'seconds');

export const videoModelInfo: Schema = obj(
  {
    endpoints: arr(
      obj(
        {
          path: str('where a task of the model is created'),
          durations: { ...seconds, description: 'seconds it takes; empty: the output follows its source video' },
          media_durations: { ...seconds, description: 'family A omni-video: seconds taken with reference media' },
          resolutions: arr(str(), '720p, 1080p, 4k …'),
          modes: arr(str(), 'family A: std, pro'),
          fields: arr(str(), 'request fields it takes there (sound, multi_shot, resolution, voice_list …)'),
        },
        ['path', 'durations', 'resolutions', 'modes', 'fields'],
      ),
    ),
    price: obj(
      {
        unit: { const: 'micro-units (1 unit = 1,000,000)' },
        per_second: {
          type: 'object',
          additionalProperties: micro('per output second'),
          description: 'by tier: a resolution, a mode or "<mode>/<resolution>" (docs/api.md, the video price)',
        },
        sound_per_second: micro('surcharge per second with sound on'),
        voice_per_second: micro('surcharge per second with a named voice'),
        input_per_second: micro('per second of input video'),
        basis: { type: 'string', enum: ['output', 'input+output'] },
        per_shot: micro('per shot of a multi-shot task'),
        per_run: micro('once per task'),
        price_group: { type: ['string', 'null'], description: "the caller's price group, when it priced them" },
      },
      ['unit', 'per_second', 'price_group'],
    ),
  },
  ['endpoints', 'price'],
);

export const videoModel: Schema = obj(
  { id: str(), object: { const: 'model' }, created: int(), owned_by: str(), video: ref('VideoModelInfo') },
  ['id', 'object', 'created', 'owned_by', 'video'],
);

export function videoModelPaths(): Record<string, Record<string, Operation>> {
  return {
    '/v1/videos/models': {
      get: familyB(
        "The video models visible to the token: durations, resolutions and fields per endpoint, and per-second prices for the token's price group",
        {},
        ok(obj({ object: { const: 'list' }, data: arr(ref('VideoModel')) })),
      ),
    },
  };
}
