import type { RequestSnapshot } from './request.machine';
import type { RequestFailure } from './request.types';

/** Pure selectors over a request snapshot. */
export const selectIsLoading = (s: RequestSnapshot): boolean => s.matches('loading') || s.matches('idle');
export const selectFailure = (s: RequestSnapshot): RequestFailure | null =>
  s.matches('failure') || s.matches('unauthorized') ? s.context.error : null;
export const selectCanRetry = (s: RequestSnapshot): boolean => s.matches('failure');
export const selectData = <T>(s: RequestSnapshot): T | undefined =>
  s.matches('success') ? (s.context.data as T) : undefined;
