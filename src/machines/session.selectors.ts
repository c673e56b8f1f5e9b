import { DEFAULT_LEVEL, roleOfLevel, type Role } from '../domain/levels';
import type { SessionSnapshot } from './session.machine';

/** Pure selectors over the session snapshot: screens read these, never `state.value` strings. */

export const selectIsRestoring = (s: SessionSnapshot): boolean => s.matches('restoring');
/** authenticated = a user is present (docs/decisions.md D1). */
export const selectAuthenticated = (s: SessionSnapshot): boolean => s.context.user !== null;
/** Role of the user, or null ("none"). */
export const selectRole = (s: SessionSnapshot): string | null => s.context.user?.role ?? null;
/** Name of the user, or '' (empty). */
export const selectName = (s: SessionSnapshot): string => s.context.user?.name ?? '';
/** Id of the user, or null ("none"). */
export const selectUserId = (s: SessionSnapshot): number | null => s.context.user?.id ?? null;
/** Level of the user, default 1 (docs/decisions.md D1). */
export const selectLevel = (s: SessionSnapshot): number => s.context.user?.level ?? DEFAULT_LEVEL;
export const selectMerchantId = (s: SessionSnapshot): number | null => s.context.user?.merchant_id ?? null;
/** The role key of the level table, when the stored role is one of ours. */
export const selectRoleKey = (s: SessionSnapshot): Role | undefined => {
  const role = selectRole(s);
  return role === 'admin' || role === 'merchant' || role === 'partner' || role === 'employee'
    ? role
    : roleOfLevel(selectLevel(s));
};
