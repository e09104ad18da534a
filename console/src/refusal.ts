// A refused call as the console and the portal show it: the gateway's message, with its request id once.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

type ErrorBody = { error?: { message?: string; request_id?: string }; message?: string; request_id?: string };

/** The refusal a response carries: its message without the request id the gateway appends, and that id apart. */
export async function refusalOf(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  let requestId = res.headers.get('x-gateway-request-id');
  try {
    const body = (await res.json()) as ErrorBody;
    message = body.error?.message ?? body.message ?? message;
    requestId ??= body.error?.request_id ?? body.request_id ?? null;
  } catch {
    // not JSON: keep the status line
  }
  // The gateway's messages end with their request id, for API clients that show the message alone.
  return new ApiError(res.status, message.replace(/\s*\(request id: [^()]*\)\s*$/, ''), requestId);
}

/** What a page shows for an error: a refusal's message and request id, or the error's message. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.requestId ? `${e.message} (request id ${e.requestId})` : e.message;
  return e instanceof Error ? e.message : String(e);
}
