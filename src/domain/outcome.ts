/** Calls as values: what the machines receive from the edge (docs/decisions.md D11). */
import type { ApiError } from './api';

/**
 * THE client error as a value: an API error (code, Chinese message, field `details`) with its HTTP status; status 0
 * means no answer (network down, timeout, aborted). The HTTP client throws it as `ApiRequestError` (src/http/client.ts);
 * `toOutcome` (src/http/outcome.ts) turns that back into this value for the machines.
 */
export type RequestError = ApiError & { status: number };

/** Expected failures come back as values; `onError` is kept for the unexpected. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RequestError };
