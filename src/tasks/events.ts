// A task's timeline (its words are the task vocabulary's, vocabulary.ts): what the engine records with each change of a
// task (store/repos/task-events.ts writes the rows in
// the transaction of the change). A poll that finds nothing changed records nothing; a change of progress alone is
// not an event.
export type { TaskEvent, TaskEventInput, TaskEventKind } from './vocabulary.ts';

/** The detail of an upstream status change: old → new. */
export const statusDetail = (from: string | null, to: string | null): string =>
  `upstream ${from ?? '—'} → ${to ?? '—'}`;

/**
 * The detail of a failure: its error code and message, and the upstream's own words (the timeline is the operators').
 */
export const errorDetail = (e: { code: string; message: string; upstreamMessage?: string }): string =>
  `${e.code}: ${e.message}${e.upstreamMessage ? ` (upstream: ${e.upstreamMessage})` : ''}`;
