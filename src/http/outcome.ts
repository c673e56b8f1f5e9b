/**
 * The one mapper from a call over the HTTP client to a value for the machines: `{ ok: true, value }`, or
 * `{ ok: false, error }` (a RequestError, src/domain/outcome.ts) for any answered or failed request (expected failures
 * are values, docs/decisions.md D11); the server's field messages (`details`) come along for forms. Anything else (a
 * bug) still throws.
 */
import type { Outcome } from '../domain/outcome';
import { isApiRequestError } from './client';

export function toOutcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  return call().then(
    (value): Outcome<T> => ({ ok: true, value }),
    (err: unknown): Outcome<T> => {
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
