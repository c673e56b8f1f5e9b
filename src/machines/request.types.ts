/** Types of the request machine. */

/** A failure as the screens show it (an `ApiRequestError` flattened to plain data). */
export interface RequestFailure {
  status: number;
  code: string;
  message: string;
}

/** What the edge-provided `fetchData` actor resolves with: expected failures come back as values. */
export type FetchResult = { ok: true; data: unknown } | { ok: false; error: RequestFailure };

export interface RequestContext {
  params: unknown;
  data: unknown;
  error: RequestFailure | null;
  attempts: number;
}

export type RequestEvent = { type: 'request.fetch'; params?: unknown } | { type: 'request.retry' };
