/** What the screens read from the money-action machine (`money-action.machine.ts`). */
import { isRetryable, type MoneyActionSnapshot } from './money-action.machine';

export const selectIsEditing = (s: MoneyActionSnapshot) => s.matches('editing');
export const selectIsConfirming = (s: MoneyActionSnapshot) => s.matches('confirming');
export const selectIsSending = (s: MoneyActionSnapshot) => s.matches('sending');
export const selectIsDone = (s: MoneyActionSnapshot) => s.matches('done');
export const selectIsFailed = (s: MoneyActionSnapshot) => s.matches('failed');
export const selectIsOpen = (s: MoneyActionSnapshot) => !s.matches('idle');
export const selectAction = (s: MoneyActionSnapshot) => s.context.action;
export const selectTarget = (s: MoneyActionSnapshot) => s.context.target;
export const selectValue = (s: MoneyActionSnapshot) => s.context.value;
export const selectError = (s: MoneyActionSnapshot) => s.context.error;
export const selectFailure = (s: MoneyActionSnapshot) => s.context.failure;
export const selectCanRetry = (s: MoneyActionSnapshot) =>
  s.matches('failed') && isRetryable(s.context.failure);
export const selectKey = (s: MoneyActionSnapshot) => s.context.key;
export const selectResult = (s: MoneyActionSnapshot) => s.context.result;
