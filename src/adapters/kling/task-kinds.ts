// Family A's task kinds: one per client path, and one per other upstream endpoint that serves the path (an o1
// text2video task is an omni-video task upstream). The kind picks the engine's driver.
import type { VidxPath } from '../../catalogue/types.ts';
import { SERVED_BY } from '../../catalogue/vidx-endpoints.ts';

export const KINDS = {
  text2video: 'kling-text2video',
  edit: 'kling-multi-elements',
  omni: 'kling-omni-video',
} as const;
export type VidxKind = (typeof KINDS)[keyof typeof KINDS];

const PATH_OF: Record<VidxKind, VidxPath> = {
  'kling-text2video': 'text2video',
  'kling-multi-elements': 'multi-elements',
  'kling-omni-video': 'omni-video',
};

/**
 * The stored kind of a task of a client path created on an upstream endpoint: the path's own kind, or
 * `<kind>@<endpoint>` when another endpoint serves it (an o1 text2video task: `kling-text2video@omni-video`). The kind
 * picks the engine's driver, so the task is queried, listed, recovered and called back at that endpoint, while the
 * client sees it on its own path.
 */
export function storedKind(kind: VidxKind, endpoint: VidxPath): string {
  return PATH_OF[kind] === endpoint ? kind : `${kind}@${endpoint}`;
}

/** Every stored kind a client path's tasks may have, and the upstream endpoint each is asked at. */
export function storedKinds(kind: VidxKind): Array<{ kind: string; endpoint: VidxPath }> {
  return SERVED_BY[PATH_OF[kind]].map((endpoint) => ({ kind: storedKind(kind, endpoint), endpoint }));
}

/** Every stored kind of every path, with the upstream endpoint it is asked at: one driver each. */
export const ALL_STORED_KINDS: ReadonlyArray<{ kind: string; endpoint: VidxPath }> =
  Object.values(KINDS).flatMap(storedKinds);
