/** What the screens read from the using machine (`user-using.machine.ts`). */
import type { UsingSnapshot } from './user-using.machine';

export const selectSignedOut = (s: UsingSnapshot) => s.matches('signedOut');
export const selectLoadFailed = (s: UsingSnapshot) => s.matches('failed');
export const selectStopDialogOpen = (s: UsingSnapshot) =>
  s.matches('confirmingStop') || s.matches('stopping');
export const selectStopping = (s: UsingSnapshot) => s.matches('stopping');
export const selectList = (s: UsingSnapshot) => s.context.list;
export const selectUsingError = (s: UsingSnapshot) => s.context.error;
export const selectStopResult = (s: UsingSnapshot) => s.context.result;
