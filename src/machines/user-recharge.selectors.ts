/** What the screens read from the recharge machine (`user-recharge.machine.ts`). */
import type { RechargeSnapshot } from './user-recharge.machine';

const PROGRESS: Record<string, string> = {
  paying: '正在创建订单…',
  prompting: '正在调起微信支付…',
  checking: '正在确认支付结果…',
  pausing: '正在确认支付结果…',
};

const stateOf = (s: RechargeSnapshot) => (typeof s.value === 'string' ? s.value : 'idle');

export const selectRechargeDone = (s: RechargeSnapshot) => s.matches('done');
/** The sheet is open from choosing a package until the payment is settled or given up. */
export const selectSheetOpen = (s: RechargeSnapshot) => !['idle', 'done', 'start'].includes(stateOf(s));
export const selectLoadingPackages = (s: RechargeSnapshot) => s.matches('loadingPackages');
/** The line under the packages while a payment runs, or null. */
export const selectProgress = (s: RechargeSnapshot) => PROGRESS[stateOf(s)] ?? null;
export const selectRechargeMerchant = (s: RechargeSnapshot) => s.context.merchant_id;
export const selectPackages = (s: RechargeSnapshot) => s.context.packages;
export const selectNotice = (s: RechargeSnapshot) => s.context.notice;
export const selectRechargeError = (s: RechargeSnapshot) => s.context.error;
export const selectCanRetryRecharge = (s: RechargeSnapshot) =>
  Boolean(s.context.error && s.context.error.retry !== 'none');
