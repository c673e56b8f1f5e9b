/** Calls as values: what the machines receive from the edge (docs/decisions.md D11), and THE client error. */
import type { ApiError } from './api';

/**
 * THE client error: an API error (code, Chinese message, field `details`) with its HTTP status; status 0 means no
 * answer (network down, timeout, aborted). Machines hold it as a plain value (`Outcome`); the HTTP client throws it
 * as a `ThrownRequestError`, which is the same shape on an Error.
 */
export type RequestError = ApiError & { status: number };

/** Expected failures come back as values; `onError` is kept for the unexpected. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: RequestError };

/**
 * A RequestError thrown: what the HTTP client (src/http/client.ts) rejects with. An Error (for the stack and
 * `instanceof`) with the RequestError fields, plus the request path and the error body as the server sent it.
 */
export class ThrownRequestError extends Error implements RequestError {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** The parsed error body as the server sent it, if any. */
  readonly data: unknown;
  readonly url: string;

  constructor(init: RequestError & { url: string; data?: unknown }) {
    super(init.message);
    this.name = 'ThrownRequestError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.data = init.data;
    this.url = init.url;
  }

  /** The RequestError as a plain value (what `Outcome` carries): status, code, message, and details when any. */
  toValue(): RequestError {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function isThrownRequestError(err: unknown): err is ThrownRequestError {
  return err instanceof ThrownRequestError;
}
