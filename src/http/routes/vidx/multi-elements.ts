// Multi-element editing over HTTP: init/add/delete/clear/preview selection, then POST /vidx/v1/videos/multi-elements
// (+ query and list). The rules are core/vidx/selections.ts.
import type { SelectionCall } from '../../../adapters/kling/multi-elements.ts';
import { parseSelectionPoints, parseSessionOnly } from '../../../contracts/vidx-edit.ts';
import { createEditTask, initSelection, selectionCall, type SelectionInput } from '../../../core/vidx/selections.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { fastifyRoute, type FastifyRoute } from '../../front/route-row.ts';
import { ok } from './envelope.ts';
import { taskRoutes } from './task-query.ts';

const PARSE: Record<SelectionCall, (b: unknown) => SelectionInput> = {
  'add-selection': parseSelectionPoints,
  'delete-selection': parseSelectionPoints,
  'clear-selection': parseSessionOnly,
  'preview-selection': parseSessionOnly,
};

export const multiElements = taskRoutes(
  fastifyRoute(({ vidx }) => async (req) => {
    return ok(req, createdView(await createEditTask(vidx, req, req.body)));
  }),
  KINDS.edit,
);

export const init = fastifyRoute(({ vidx }) => async (req) => {
  return ok(req, await initSelection(vidx, req, req.body));
});

/** A selection call after init, with its body's parser. */
const selection = (name: SelectionCall): FastifyRoute =>
  fastifyRoute(({ vidx }) => async (req) => {
    return ok(req, await selectionCall(vidx, req, name, PARSE[name](req.body)));
  });

export const addSelection = selection('add-selection');
export const deleteSelection = selection('delete-selection');
export const clearSelection = selection('clear-selection');
export const previewSelection = selection('preview-selection');
