/**
 * Wiring of the refund outbox worker into the server: with WeChat Pay configured (live or sandbox), builds
 * `deps.refunds` and runs its timer. Tests that build AppDeps by hand call `createRefundWorker` themselves.
 */
import type { StartHook } from '../../context';
import { createRefundWorker, type RefundWorker } from './refund-worker';

declare module '../../context' {
  interface AppDeps {
    /** The WeChat refund outbox worker (its timer runs a pass every second; `kick()` runs one now). */
    refunds?: RefundWorker;
  }
}

export const refundWorkerStartHook: StartHook = (deps) => {
  if (!deps.wechat) return;
  deps.refunds ??= createRefundWorker({ db: deps.db, pay: deps.wechat.pay, now: deps.now });
  return deps.refunds.start();
};
