/** What the cash desk screen reads from the cash-recharge machine (`cash-recharge.machine.ts`). */
import type { CashRechargeSnapshot } from './cash-recharge.machine';

/** Which step the desk is at, one flag per step the screen draws. */
export const selectCashSteps = (s: CashRechargeSnapshot) => ({
  entering: s.matches('entering'),
  scanning: s.matches('scanning'),
  lookingUp: s.matches('lookingUp'),
  choosing: s.matches('choosing'),
  confirming: s.matches('confirming'),
  submitting: s.matches('submitting'),
  failed: s.matches('failed'),
  done: s.matches('done'),
});
