// Multi-element editing over HTTP: init/add/delete/clear/preview selection, then POST /vidx/v1/videos/multi-elements
// (+ query and list). The rules are core/vidx/selections.ts.
import type { FastifyInstance } from 'fastify';
import type { SelectionCall } from '../../../adapters/kling/multi-elements.ts';
import { parseSelectionPoints, parseSessionOnly } from '../../../contracts/vidx-edit.ts';
import type { VidxContext } from '../../../core/vidx/context.ts';
import { createEditTask, initSelection, selectionCall, type SelectionInput } from '../../../core/vidx/selections.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { ok } from './envelope.ts';
import { registerTaskQueries } from './task-query.ts';

const SELECTION_CALLS: Array<[SelectionCall, (b: unknown) => SelectionInput]> = [
  ['add-selection', parseSelectionPoints],
  ['delete-selection', parseSelectionPoints],
  ['clear-selection', parseSessionOnly],
  ['preview-selection', parseSessionOnly],
];

export function registerMultiElements(scope: FastifyInstance, ctx: VidxContext): void {
  scope.post('/videos/multi-elements/init-selection', async (req) => ok(req, await initSelection(ctx, req, req.body)));
  for (const [name, parse] of SELECTION_CALLS) {
    scope.post(`/videos/multi-elements/${name}`, async (req) => ok(req, await selectionCall(ctx, req, name, parse(req.body))));
  }
  scope.post('/videos/multi-elements', async (req) => ok(req, createdView(await createEditTask(ctx, req, req.body))));
  registerTaskQueries(scope, ctx, '/videos/multi-elements', KINDS.edit);
}
