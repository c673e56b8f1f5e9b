/**
 * The one mapper from a call over the HTTP client to a value for the machines: `{ ok: true, value }`, or
 * `{ ok: false, error }` for any answered or failed request (expected failures are values, docs/decisions.md D11);
 * the server's field messages (`details`) come along for forms. Anything else (a bug) still throws.
 */
import { isApiRequestError } from './client';

export type ApiOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: { status: number; code: string; message: string; details?: Record<string, unknown> };
    };

export function toOutcome<T>(call: () => Promise<T>): Promise<ApiOutcome<T>> {
  return call().then(
    (value): ApiOutcome<T> => ({ ok: true, value }),
    (err: unknown): ApiOutcome<T> => {
      if (isApiRequestError(err)) {
        return {
          ok: false,
          error: {
            status: err.status,
            code: err.code,
            message: err.message,
            ...(err.details ? { details: err.details } : {}),
          },
        };
      }
      throw err;
    },
  );
}
