// OpenAPI paths of /v1/videos (OpenAI's Videos API shape): create, list, query, delete, content, and the stored
// reference media the upstream fetches.
import { arr, familyB, jsonBody, obj, ok, pathParam, query, str, type Operation } from './schema.ts';
import { videoTask } from './schema-v1.ts';

const videoId = pathParam('video_id', 'Our video id');

const createBody = obj(
  {
    model: str(),
    prompt: { type: 'string', maxLength: 5000 },
    seconds: {
      type: ['integer', 'string'],
      minimum: 2,
      maximum: 15,
      description: '2–15 (hhx: 3–15, per-model maximum); a decimal string is accepted',
    },
    resolution: { type: 'string', enum: ['720p', '1080p'], description: 'hhx-1.1 defaults to 1080p' },
    size: str('<width>x<height>: implies the tier and ratio when resolution is absent'),
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: 2147483647,
      description: 'only for models with a fixed seed; a JSON number',
    },
    input_reference: {
      description:
        'image (or video for wnx2.7-i2v) reference: a public URL string, {image_url}, a data: URL ' +
        '(data:<type>;base64,…), or an array of these; in a multipart body also a file part. Inline media: ' +
        'image/jpeg, image/png, image/webp, image/bmp up to 10 MB, video/mp4, video/quicktime up to 20 MB, their ' +
        'bytes of that type; kept 24 h and handed to the upstream at a signed gateway address (needs ' +
        'TOLLWAY_PUBLIC_URL). Otherwise 400 invalid_reference, before any hold',
    },
    input_image: { description: 'alternative to input_reference for hhx-1.1-i2v / hhx-1.0-i2v (same forms)' },
    references: obj({ video: arr(str('.mp4 / .mov URL, or a data: URL')) }),
    callback_url: {
      type: 'string',
      maxLength: 2048,
      description:
        'absolute http(s) URL without credentials, public unless the operator allows private networks: POSTed the ' +
        "video object once the video is completed, failed or cancelled, signed as Standard Webhooks with the token's " +
        'callback secret (webhook-id cb_<video id>, retried with back-off)',
    },
  },
  ['model'],
);

const videoList = obj({
  object: { const: 'list' },
  data: arr(videoTask),
  first_id: { type: ['string', 'null'] },
  last_id: { type: ['string', 'null'] },
  has_more: { type: 'boolean' },
});

export function videoPaths(): Record<string, Record<string, Operation>> {
  return {
    '/v1/videos': {
      post: familyB(
        'Create an asynchronous video task',
        { requestBody: jsonBody(createBody, true) },
        ok(videoTask, 'Task created'),
      ),
      get: familyB(
        "List the token's videos (deleted ones left out), as OpenAI's list",
        {
          parameters: [
            query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Videos per page'),
            query('after', str(), 'A video id (the last_id of a page): list the ones after it in this order'),
            query('order', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }, 'By creation time'),
          ],
        },
        ok(videoList),
      ),
    },
    '/v1/videos/{video_id}': {
      get: familyB('Query a video task (404 once deleted)', { parameters: [videoId] }, ok(videoTask)),
      delete: familyB(
        'Delete a video: one not yet being made (queued) is cancelled upstream and its hold released, never ' +
          'charged; a finished one is hidden (not listed, not read, its content not served; its charge stands). ' +
          'One being generated (in_progress) is 409 conflict. Deleting again is 404, as at OpenAI',
        { parameters: [videoId] },
        ok(
          obj({ id: str(), object: { const: 'video.deleted' }, deleted: { const: true } }, ['id', 'object', 'deleted']),
        ),
      ),
    },
    '/v1/videos/{video_id}/content': {
      get: familyB(
        'Download the finished video (409 video_not_ready before; Range supported)',
        {
          parameters: [
            videoId,
            query(
              'variant',
              { type: 'string', enum: ['video', 'thumbnail', 'spritesheet'], default: 'video' },
              'video (default). thumbnail and spritesheet: 404 not_found (the upstream makes neither; the MP4 is ' +
                'never sent in their place); any other value: 400',
            ),
            {
              name: 'Range',
              in: 'header',
              schema: str(),
              description:
                'one byte range (bytes=first-last, first- or -suffix; unit in any case): 206, or 416 past the end; any other Range, a list of ranges included, is ignored (200, the whole file)',
            },
          ],
        },
        ok({ type: 'string', format: 'binary' }, 'The video file', 'video/mp4'),
      ),
    },
    '/v1/videos/inputs/{name}': {
      get: {
        tags: ['internal'],
        summary: 'A reference medium sent inline with POST /v1/videos, for the upstream to fetch (signed address)',
        security: [],
        parameters: [
          pathParam('name', '<input id>.<ext>'),
          query('sig', str(), 'the signature the gateway gave with the address'),
        ],
        responses: {
          '200': ok({ type: 'string', format: 'binary' }, 'The medium, in its own type', 'application/octet-stream'),
          '404': { description: 'Unknown, expired, or a wrong signature' },
        },
      },
    },
  };
}
