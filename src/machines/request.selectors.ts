import type { RequestSnapshot } from './request.machine';
import type { RequestError } from '../domain/outcome';

/** Pure selectors over a request snapshot. */
export const selectIsLoading = (s: RequestSnapshot): boolean => s.matches('loading') || s.matches('idle');
export const selectFailure = (s: RequestSnapshot): RequestError | null =>
  s.matches('failure') || s.matches('unauthorized') ? s.context.error : null;
export const selectCanRetry = (s: RequestSnapshot): boolean => s.matches('failure');
export const selectData = <T>(s: RequestSnapshot): T | undefined =>
  s.matches('success') ? (s.context.data as T) : undefined;
