/** Calls as values: what the machines receive from the edge (docs/decisions.md D11). */
import type { ApiError } from './api';

/** An API error with its HTTP status; status 0 means no answer (network down, timeout, aborted). */
export type RequestError = ApiError & { status: number };

/** Expected failures come back as values; `onError` is kept for the unexpected. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RequestError };
