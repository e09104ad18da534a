// OpenAPI paths of the family A video API (/vidx/v1) and the upstream callback receiver.
import { str, int, num, arr, obj, jsonBody, ok, pathParam, PAGE, familyA, type Operation } from './schema.ts';
import { envelope, taskData, taskQueryData, selection, selectionData, rleMask, modeEnum } from './schema-vidx.ts';

export function vidxPaths(): Record<string, Record<string, Operation>> {
  const taskIdParam = [pathParam('task_id', "Our task id, or the caller's external_task_id")];
  return {
    '/vidx/v1/videos/text2video': {
      post: familyA(
        'Create a text-to-video task',
        {
          requestBody: jsonBody(
            obj(
              {
                model_name: {
                  type: 'string',
                  default: 'vidx-v1',
                  enum: [
                    'vidx-video-o1',
                    'vidx-v1',
                    'vidx-v1-5',
                    'vidx-v1-6',
                    'vidx-v2-master',
                    'vidx-v2-1',
                    'vidx-v2-1-master',
                    'vidx-v2-5-turbo',
                    'vidx-v2-6',
                    'vidx-v3',
                    'vidx-v2-5',
                  ],
                  description:
                    '`vidx-v2-5` is normalised to `vidx-v2-5-turbo`; `vidx-v3-omni` belongs on /omni-video. `vidx-v1-5` and `vidx-v2-1` are refused (400 / 1201, "does not support text-to-video": image-to-video only upstream); `vidx-video-o1` is served by the upstream omni-video and reads back as a text2video task. Which model takes which field is catalogue data (docs/api.md); a field a model does not take is refused, naming it',
                },
                prompt: { type: 'string', maxLength: 2500 },
                negative_prompt: str('not for vidx-video-o1'),
                cfg_scale: { type: 'number', minimum: 0, maximum: 1, description: 'vidx-v1, vidx-v1-6 only' },
                sound: { type: 'string', enum: ['on', 'off'], description: 'vidx-v2-6 only' },
                mode: {
                  ...modeEnum('std'),
                  description: 'not for the master models (vidx-v2-master, vidx-v2-1-master: one price, no mode)',
                },
                camera_control: {
                  ...obj({
                    type: {
                      type: 'string',
                      enum: ['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward'],
                    },
                    config: {
                      ...obj({ horizontal: num(), vertical: num(), pan: num(), tilt: num(), roll: num(), zoom: num() }),
                      description: 'required for (and only with) type simple; each in [-10, 10], exactly one non-zero',
                    },
                  }),
                  description: 'not for vidx-video-o1',
                },
                aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'], default: '16:9' },
                duration: {
                  type: 'string',
                  enum: ['5', '10'],
                  default: '5',
                  description: 'a string; the JSON number 5 is refused',
                },
                watermark_info: obj({ enabled: { type: 'boolean' } }),
                callback_url: str('notified (signed) once the task is succeed or failed'),
                external_task_id: str('idempotency per token and endpoint'),
              },
              ['prompt'],
            ),
          ),
        },
        ok(envelope(taskData), 'Task created'),
      ),
      get: familyA(
        "List the caller's text-to-video tasks, newest first",
        { parameters: PAGE },
        ok(envelope(arr(taskQueryData))),
      ),
    },
    '/vidx/v1/videos/multi-elements/init-selection': {
      post: familyA(
        'Initialise a video for multi-element editing',
        {
          requestBody: jsonBody(
            obj({
              video_id: str('exactly one of video_id (one of our video ids) / video_url'),
              video_url: str('http(s) URL of an mp4/mov'),
            }),
          ),
        },
        ok(
          envelope(
            obj({
              status: int(),
              session_id: str('valid 24 hours'),
              fps: num(),
              original_duration: num(),
              width: int(),
              height: int(),
              total_frame: int(),
              normalized_video: str(),
            }),
          ),
        ),
      ),
    },
    '/vidx/v1/videos/multi-elements/add-selection': {
      post: familyA(
        'Add a selected area',
        { requestBody: jsonBody(selection) },
        ok(envelope(selectionData(obj({ frame_index: int(), rle_mask_list: arr(rleMask) })))),
      ),
    },
    '/vidx/v1/videos/multi-elements/delete-selection': {
      post: familyA(
        'Remove a selected area (points must match the added ones)',
        { requestBody: jsonBody(selection) },
        ok(envelope(selectionData(obj({ frame_index: int(), rle_mask_list: arr(rleMask) })))),
      ),
    },
    '/vidx/v1/videos/multi-elements/clear-selection': {
      post: familyA(
        'Clear the selection',
        { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) },
        ok(envelope(selectionData())),
      ),
    },
    '/vidx/v1/videos/multi-elements/preview-selection': {
      post: familyA(
        'Preview the selection',
        { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) },
        ok(
          envelope(
            selectionData(
              obj({
                video: str('preview video with the mask marker'),
                video_cover: str('cover image'),
                tracking_output: str(),
              }),
            ),
          ),
        ),
      ),
    },
    '/vidx/v1/videos/multi-elements': {
      post: familyA(
        'Create a multi-element edit task',
        {
          requestBody: jsonBody(
            obj(
              {
                model_name: { type: 'string', enum: ['vidx-v1-6'], default: 'vidx-v1-6' },
                session_id: str('from init-selection; valid 24 hours'),
                edit_mode: { type: 'string', enum: ['addition', 'swap', 'removal'] },
                image_list: {
                  ...arr(obj({ image: str('image URL') }, ['image'])),
                  description: 'addition: 1–2 images; swap: exactly 1; removal: none',
                },
                prompt: { type: 'string', maxLength: 2500 },
                negative_prompt: str(),
                mode: modeEnum('std'),
                duration: { type: 'string', enum: ['5', '10'], default: '5' },
                watermark_info: obj({ enabled: { type: 'boolean' } }),
                callback_url: str(),
                external_task_id: str(),
              },
              ['session_id', 'edit_mode', 'prompt'],
            ),
          ),
        },
        ok(envelope(taskData), 'Task created'),
      ),
      get: familyA(
        "List the caller's multi-element edit tasks, newest first",
        { parameters: PAGE },
        ok(envelope(arr(taskQueryData))),
      ),
    },
    '/vidx/v1/videos/multi-elements/{task_id}': {
      get: familyA('Query a multi-element edit task', { parameters: taskIdParam }, ok(envelope(taskQueryData))),
    },
    '/vidx/v1/videos/omni-video': {
      post: familyA(
        'Create an omni-video task (the vendor body is passed through)',
        {
          requestBody: jsonBody(
            obj(
              {
                model_name: {
                  type: 'string',
                  enum: ['vidx-v3-omni', 'vidx-video-o1'],
                  default: 'vidx-v3-omni',
                  description: 'negative_prompt, cfg_scale and camera_control are refused on this path',
                },
                prompt: { type: 'string', maxLength: 2500 },
                image_list: arr(
                  obj({ image_url: str(), type: { type: 'string', enum: ['first_frame', 'end_frame'] } }),
                ),
                element_list: arr(obj({ element_id: {} })),
                video_list: {
                  ...arr(
                    obj({
                      video_url: str(),
                      refer_type: { type: 'string', enum: ['base', 'feature'] },
                      keep_original_sound: { type: 'string', enum: ['yes', 'no'] },
                    }),
                  ),
                  maxItems: 1,
                },
                sound: { type: 'string', enum: ['on', 'off'] },
                mode: modeEnum('pro'),
                aspect_ratio: {
                  type: 'string',
                  enum: ['16:9', '9:16', '1:1'],
                  description: 'vidx-video-o1 without a first frame: 16:9 when not given (the upstream requires one)',
                },
                duration: {
                  type: 'string',
                  enum: ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15'],
                  default: '5',
                  description:
                    'vidx-v3-omni "3"–"15"; vidx-video-o1 "5" or "10" text-only or with only a first frame, "3"–"10" with other media',
                },
                watermark_info: obj({ enabled: { type: 'boolean' } }),
                callback_url: str(),
                external_task_id: str(),
              },
              ['prompt'],
            ),
          ),
        },
        ok(envelope(taskData), 'Task created'),
      ),
      get: familyA(
        "List the caller's omni-video tasks, newest first",
        { parameters: PAGE },
        ok(envelope(arr(taskQueryData))),
      ),
    },
    // Beyond the contract table: the query/list routes the vendor API has for the other task kinds.
    '/vidx/v1/videos/omni-video/{task_id}': {
      get: familyA('Query an omni-video task', { parameters: taskIdParam }, ok(envelope(taskQueryData))),
    },
    '/vidx/v1/videos/text2video/{task_id}': {
      get: familyA('Query a text-to-video task', { parameters: taskIdParam }, ok(envelope(taskQueryData))),
    },
    '/vidx/callbacks/kling/{ref}': {
      post: {
        tags: ['internal'],
        summary: 'Receiver for upstream task callbacks (not for clients; the reference authenticates it)',
        security: [],
        parameters: [pathParam('ref', 'Opaque callback reference')],
        responses: { '200': ok(obj()) },
      },
    },
  };
}
