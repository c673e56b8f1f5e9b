/** Types of the request machine. */

import type { Outcome, RequestError } from '../domain/outcome';

/** What the edge-provided `fetchData` actor resolves with (`toOutcome`): expected failures come back as values. */
export type FetchResult = Outcome<unknown>;

export interface RequestContext {
  params: unknown;
  data: unknown;
  error: RequestError | null;
  attempts: number;
}

export type RequestEvent = { type: 'request.fetch'; params?: unknown } | { type: 'request.retry' };
