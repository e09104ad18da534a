// The Kling (vidx upstream) area of the simulator: classic `model_name` video API.
// JWT verification happens in server.ts for every /v1/ path before these handlers run.
import type { SimContext } from '../context.ts';
import type { SimRouter } from '../router.ts';
import { registerKlingSelection } from './selection.ts';
import { registerKlingTasks } from './tasks.ts';

export { klingState, type KlingState, type KlingTask, type SentCallback } from './state.ts';

export function registerKling(router: SimRouter, ctx: SimContext): void {
  // Selection routes first: `/multi-elements/init-selection` must not be read as a task id.
  registerKlingSelection(router, ctx);
  registerKlingTasks(router, ctx);
}
