/**
 * The one mapper from a call over the HTTP client to a value for the machines: `{ ok: true, value }`, or
 * `{ ok: false, error }` (the thrown RequestError's value, src/domain/outcome.ts) for any answered or failed request (expected failures
 * are values, docs/decisions.md D11); the server's field messages (`details`) come along for forms. Anything else (a
 * bug) still throws.
 */
import { isThrownRequestError, type Outcome } from '../domain/outcome';

export function toOutcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  return call().then(
    (value): Outcome<T> => ({ ok: true, value }),
    (err: unknown): Outcome<T> => {
      if (isThrownRequestError(err)) return { ok: false, error: err.toValue() };
      throw err;
    },
  );
}
