// The Kling envelope: `{code:0, message:"SUCCEED", request_id, data}`; errors carry a non-zero code and no data.
import type { ServerResponse } from 'node:http';
import { requestId, sendJson } from '../http-util.ts';

export function klingOk(res: ServerResponse, data: unknown): void {
  sendJson(res, 200, { code: 0, message: 'SUCCEED', request_id: requestId(), data });
}

export function klingErr(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { code, message, request_id: requestId() });
}

/** A 1201 parameter error (the most common rejection). */
export const badParam = (res: ServerResponse, message: string): void => klingErr(res, 400, 1201, message);

export const notFound = (res: ServerResponse, message: string): void => klingErr(res, 404, 1203, message);

/** Thrown by validators; the handler turns it into a 1201 answer. */
export class SimParamError extends Error {}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
