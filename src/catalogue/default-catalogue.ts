// Every public model in the contract. Data, not code: an operator overrides any field via the
// admin API or a catalogue file. Prices are integer micro-units (1 unit = 1,000,000 micro-units).
import type { ModelEntry, VideoRules, VidxEndpoint } from './types.ts';
import { DURATIONS_5_10, durationRange, text2videoRules } from './vidx-endpoints.ts';

const hhx = (refs: VideoRules['refs'], over: Partial<VideoRules> = {}): VideoRules => ({
  minSeconds: 3,
  maxSeconds: 15,
  defaultSeconds: 5,
  defaultResolution: '1080p',
  seed: true,
  refs,
  ratio: refs === 'none' || refs === 'reference-images',
  duration: true,
  ...over,
});
const wnx = (refs: VideoRules['refs'], over: Partial<VideoRules> = {}): VideoRules => ({
  minSeconds: 2,
  maxSeconds: 15,
  defaultSeconds: 5,
  defaultResolution: '1080p',
  seed: true,
  refs,
  ratio: refs === 'none',
  duration: true,
  ...over,
});

const HHX_PRICE = { '720p': 900_000, '1080p': 1_600_000 };
const WNX_PRICE = { '720p': 600_000, '1080p': 1_000_000 };

const video = (
  id: string,
  rules: VideoRules,
  perSecond = id.startsWith('hhx') ? HHX_PRICE : WNX_PRICE,
  basis: 'output' | 'input+output' = 'output',
): ModelEntry => ({
  id,
  kind: 'video',
  upstream: 'dashscope',
  upstreamModel: id.replace(/^hhx/, 'happyhorse').replace(/^wnx/, 'wan'),
  ownedBy: id.startsWith('hhx') ? 'hhx' : 'wnx',
  price: { unit: 'video-second', perSecond, basis },
  capabilities: {},
  video: rules,
});

const vidx = (
  id: string,
  kind: 'vidx-video' | 'vidx-edit' | 'vidx-omni',
  std: number,
  pro: number,
  extra: Partial<ModelEntry> = {},
): ModelEntry => ({
  id,
  kind,
  upstream: 'kling',
  upstreamModel: id.replace(/^vidx/, 'kling'),
  ownedBy: 'vidx',
  price: { unit: 'video-mode-second', perSecond: { std, pro } },
  capabilities: {},
  ...extra,
});

/**
 * A model that takes `sound`: priced by mode as the others, plus a surcharge per second with sound on — half the std
 * rate, as the upstream's own prices rise with audio (Kling 3.0: 720p $0.084/s, $0.126/s with audio).
 */
const withSound = (e: ModelEntry): ModelEntry => {
  if (e.price.unit !== 'video-mode-second') return e;
  const { std, pro } = e.price.perSecond;
  return { ...e, price: { unit: 'video', perSecond: { std, pro }, soundPerSecond: std / 2 } };
};

// The omni-video endpoint: mode (default pro upstream) and sound; no negative_prompt, cfg_scale or camera_control.
const OMNI: VidxEndpoint = {
  endpoint: 'omni-video',
  fields: ['mode', 'sound'],
  durations: durationRange(3, 15),
  defaultMode: 'pro',
};

export const DEFAULT_CATALOGUE: ModelEntry[] = [
  // Text / vision / embeddings (DashScope)
  {
    id: 'qwx3.7-plus',
    kind: 'chat',
    upstream: 'dashscope',
    upstreamModel: 'qwen3.7-plus',
    ownedBy: 'qwx',
    price: {
      unit: 'tokens',
      tiers: [
        { maxInputTokens: null, inputPer1k: 800, outputPer1k: 2000, cachedInputPer1k: 160, cacheCreationPer1k: 1000 },
      ],
    },
    capabilities: { imageInput: true, responses: true, messages: true },
  },
  {
    id: 'qwx3-vl-plus',
    kind: 'vision',
    upstream: 'dashscope',
    upstreamModel: 'qwen3-vl-plus',
    ownedBy: 'qwx',
    price: {
      unit: 'tokens',
      tiers: [
        { maxInputTokens: 32_000, inputPer1k: 1000, outputPer1k: 10_000, cachedInputPer1k: 200 },
        { maxInputTokens: 128_000, inputPer1k: 1500, outputPer1k: 15_000, cachedInputPer1k: 300 },
        { maxInputTokens: 256_000, inputPer1k: 3000, outputPer1k: 30_000, cachedInputPer1k: 600 },
      ],
    },
    capabilities: { imageInput: true, responses: true, messages: true },
  },
  {
    id: 'text-embedding-v4',
    kind: 'embedding',
    upstream: 'dashscope',
    upstreamModel: 'text-embedding-v4',
    ownedBy: 'qwx',
    price: { unit: 'tokens', tiers: [{ maxInputTokens: null, inputPer1k: 500, outputPer1k: 0 }] },
    capabilities: {},
  },
  // Images
  {
    id: 'qwx-image-2.0',
    kind: 'image',
    upstream: 'dashscope',
    upstreamModel: 'qwen-image-2.0',
    ownedBy: 'qwx',
    price: { unit: 'image', perImage: 200_000 },
    capabilities: { imageGenerate: true, imageEdit: true, maxEditImages: 3, maxN: 6 },
  },
  {
    id: 'qwx-image-2.0-pro',
    kind: 'image',
    upstream: 'dashscope',
    upstreamModel: 'qwen-image-2.0-pro',
    ownedBy: 'qwx',
    price: { unit: 'image', perImage: 500_000 },
    capabilities: { imageGenerate: true, imageEdit: true, maxEditImages: 3, maxN: 6 },
  },
  {
    id: 'qwx-image-edit-plus',
    kind: 'image-edit',
    upstream: 'dashscope',
    upstreamModel: 'qwen-image-edit-plus',
    ownedBy: 'qwx',
    price: { unit: 'image', perImage: 200_000 },
    capabilities: { imageGenerate: false, imageEdit: true, maxEditImages: 3, maxN: 6 },
  },
  // /v1/videos (DashScope video synthesis)
  video('hhx-1.1-t2v', hhx('none')),
  video('hhx-1.1-i2v', hhx('first-frame')),
  video('hhx-1.1-r2v', hhx('reference-images', { maxReferenceImages: 9 })),
  video('hhx-1.0-i2v', hhx('first-frame', { defaultResolution: '720p' })),
  video('hhx-1.0-r2v', hhx('reference-images', { maxReferenceImages: 9, defaultResolution: '720p' })),
  video(
    'hhx-1.0-video-edit',
    hhx('hhx-edit', { defaultResolution: '720p', ratio: false, duration: false }),
    HHX_PRICE,
    'input+output',
  ),
  { ...video('wnx2.7-t2v', wnx('none')), snapshots: true },
  { ...video('wnx2.7-i2v', wnx('wan-i2v')), snapshots: true },
  video('wnx2.7-r2v', wnx('wan-r2v', { maxSecondsWithVideo: 10 })),
  // Without seconds the edit keeps its source's length (duration 0 upstream): the hold covers the longest, 10 s.
  video('wnx2.7-videoedit', wnx('wan-edit', { maxSeconds: 10, defaultSeconds: 10, upstreamDefaultDuration: 0 })),
  // Family A (Kling classic API). `vidx`: the upstream endpoint per contract path and the fields taken there
  // (upstream-protocols.md §7 "Which endpoint takes which model"; cfg_scale and sound as the contract allows them).
  vidx('vidx-v1', 'vidx-video', 140_000, 490_000, {
    vidx: { text2video: text2videoRules(['mode', 'negative_prompt', 'cfg_scale', 'camera_control']) },
  }),
  // Image-to-video only upstream: no endpoint serves it on text2video.
  vidx('vidx-v1-5', 'vidx-video', 140_000, 490_000, { vidx: {} }),
  vidx('vidx-v1-6', 'vidx-video', 140_000, 490_000, {
    vidx: { text2video: text2videoRules(['mode', 'negative_prompt', 'cfg_scale', 'camera_control']) },
  }),
  // Not on the upstream's text2video: a text-only omni-video task (aspect_ratio required there without a first frame).
  withSound(
    vidx('vidx-video-o1', 'vidx-video', 400_000, 800_000, {
      vidx: {
        text2video: {
          endpoint: 'omni-video',
          fields: ['mode'],
          durations: DURATIONS_5_10,
          defaultMode: 'std',
          aspectRatioRequired: true,
        },
        'omni-video': {
          ...OMNI,
          durations: DURATIONS_5_10,
          mediaDurations: durationRange(3, 10),
          aspectRatioRequired: true,
        },
      },
    }),
  ),
  // Master models have no std/pro mode (equal prices for both tiers).
  vidx('vidx-v2-master', 'vidx-video', 1_000_000, 1_000_000, {
    vidx: { text2video: text2videoRules(['negative_prompt', 'camera_control']) },
  }),
  vidx('vidx-v2-1', 'vidx-video', 140_000, 490_000, { vidx: {} }),
  vidx('vidx-v2-1-master', 'vidx-video', 1_000_000, 1_000_000, {
    vidx: { text2video: text2videoRules(['negative_prompt', 'camera_control']) },
  }),
  vidx('vidx-v2-5-turbo', 'vidx-video', 250_000, 500_000, {
    aliases: ['vidx-v2-5'],
    vidx: { text2video: text2videoRules() },
  }),
  withSound(
    vidx('vidx-v2-6', 'vidx-video', 250_000, 500_000, {
      vidx: { text2video: text2videoRules(['mode', 'negative_prompt', 'sound', 'camera_control']) },
    }),
  ),
  vidx('vidx-v3', 'vidx-video', 300_000, 600_000, { vidx: { text2video: text2videoRules() } }),
  withSound(vidx('vidx-v3-omni', 'vidx-omni', 300_000, 600_000, { vidx: { 'omni-video': OMNI } })),
  // The multi-element edit model: the same public name as text-to-video v1.6 but its own price. Its create body
  // carries no model_name (the upstream's endpoint has one model).
  vidx('vidx-v1-6-multi-elements', 'vidx-edit', 280_000, 980_000, {
    upstreamModel: 'kling-v1-6',
    hidden: true,
    vidx: {
      'multi-elements': {
        endpoint: 'multi-elements',
        fields: ['mode', 'negative_prompt'],
        durations: DURATIONS_5_10,
        defaultMode: 'std',
        sendModelName: false,
      },
    },
  }),
];

/** Refused on family A text2video: the 3.0 turbo model is not admitted. */
export const REFUSED_MODELS = ['vidx-v3-turbo', 'vidx-v3-0-turbo', 'vidx-v3.0-turbo'];
