// Family B error answers as the tests check them: status, the `{error}` shape, the code, and the request id in
// the body equal to the `x-gateway-request-id` header (and at the end of the message).
import { expect } from 'vitest';

export type BErr = { error: { code: string; type: string; message: string; request_id: string; param?: string } };

export const RID = /^req_[0-9a-f]{32}$/;

export async function expectB(r: Response, status: number, code: string): Promise<BErr> {
  expect(r.status).toBe(status);
  const rid = r.headers.get('x-gateway-request-id');
  expect(rid).toMatch(RID);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await r.json()) as BErr;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(rid);
  expect(body.error.message.endsWith(`(request id: ${rid})`)).toBe(true);
  expect(typeof body.error.type).toBe('string');
  return body;
}
