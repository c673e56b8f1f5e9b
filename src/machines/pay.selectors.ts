/**
 * Named, pure selectors over the pay machine's snapshot (docs/decisions.md D11): screens read these, never
 * `state.value` strings.
 */
import type { SnapshotFrom } from 'xstate';
import { formatFen } from '../domain/money';
import type { PayMachine } from './pay.machine';
import { deviceIsAvailable, merchantIsClosed, selectedPriceOf, walletBalanceOf } from './pay.setup';
import type { PayEvent } from './pay.types';

export type PaySnapshot = SnapshotFrom<PayMachine>;

export type PayView =
  'loading' | 'choosing' | 'confirming' | 'paying' | 'waitingForPayment' | 'starting' | 'running' | 'failed';

export function selectView(s: PaySnapshot): PayView {
  const views: PayView[] = [
    'loading',
    'confirming',
    'paying',
    'waitingForPayment',
    'starting',
    'running',
    'failed',
  ];
  return views.find((v) => s.matches(v)) ?? 'choosing';
}

/** True while money may be moving: the page must not offer another payment. */
export function selectIsBusy(s: PaySnapshot): boolean {
  return ['paying', 'waitingForPayment', 'starting', 'running'].includes(selectView(s));
}

export function selectProgressText(s: PaySnapshot): string | null {
  switch (selectView(s)) {
    case 'paying':
      return '正在下单…';
    case 'waitingForPayment':
      return s.matches({ waitingForPayment: 'prompting' }) ? '正在调起微信支付…' : '正在确认支付结果…';
    case 'starting':
      return '支付成功，正在启动设备…';
    case 'running':
      return '设备已启动';
    default:
      return null;
  }
}

export const selectData = (s: PaySnapshot) => s.context.data;
export const selectDevice = (s: PaySnapshot) => s.context.data?.device ?? null;
export const selectVenue = (s: PaySnapshot) => s.context.data?.venue ?? null;
export const selectPrices = (s: PaySnapshot) => s.context.data?.prices ?? [];
export const selectSelectedPrice = (s: PaySnapshot) => selectedPriceOf(s.context);
export const selectMethod = (s: PaySnapshot) => s.context.method;
export const selectNotice = (s: PaySnapshot) => s.context.notice;
export const selectFailure = (s: PaySnapshot) => s.context.failure;
export const selectIsSignedIn = (s: PaySnapshot) => Boolean(s.context.data?.profile);
export const selectMember = (s: PaySnapshot) => s.context.data?.profile?.member ?? null;
export const selectBalance = (s: PaySnapshot) => walletBalanceOf(s.context);
export const selectOrderNo = (s: PaySnapshot) => s.context.attempt?.order_no ?? null;

export const MERCHANT_CLOSED = '该商户已停止营业，暂时无法支付或充值';

/** True when the device's merchant was stopped: the page shows why instead of the pay buttons. */
export const selectMerchantClosed = (s: PaySnapshot) => merchantIsClosed(s.context);

/** Why the device cannot be paid for, in Chinese; null when it can. */
export function selectDeviceProblem(s: PaySnapshot): string | null {
  const d = s.context.data?.device;
  if (!d || deviceIsAvailable(s.context)) return null;
  if (merchantIsClosed(s.context)) return MERCHANT_CLOSED;
  if (!d.online || d.status === 'offline') return '设备离线，暂时无法使用';
  if (d.status === 'running') return '设备正在使用中，请稍后再试';
  if (d.status === 'fault') return '设备故障，请联系商家';
  return '设备已停用';
}

/** Whether 余额支付 may be pressed, and why not (shown beside the disabled button). */
export function selectWalletPay(s: PaySnapshot): {
  enabled: boolean;
  reason: string | null;
  shortBy: number;
} {
  const price = selectedPriceOf(s.context);
  if (!selectIsSignedIn(s)) return { enabled: false, reason: null, shortBy: 0 };
  if (!price) return { enabled: false, reason: '请选择套餐', shortBy: 0 };
  const shortBy = price.price_fen - walletBalanceOf(s.context);
  if (shortBy > 0) return { enabled: false, reason: '余额不足', shortBy };
  return { enabled: selectDeviceProblem(s) === null, reason: null, shortBy: 0 };
}

export function selectWechatPay(s: PaySnapshot): { enabled: boolean } {
  return { enabled: Boolean(selectedPriceOf(s.context)) && selectDeviceProblem(s) === null };
}

export interface ForwardAction {
  label: string;
  event: PayEvent;
  primary?: boolean;
}

/** The ways forward offered on the failed screen, by what went wrong. */
export function selectForwardActions(s: PaySnapshot): ForwardAction[] {
  const f = s.context.failure;
  if (!f) return [];
  const actions: ForwardAction[] = [];
  if (f.retry === 'load' || f.retry === 'pay')
    actions.push({ label: '重试', event: { type: 'retry' }, primary: true });
  if (f.retry === 'checkPayment' || f.retry === 'checkStart')
    actions.push({ label: '再次查询', event: { type: 'retry' }, primary: true });
  if (f.code === 'INSUFFICIENT_BALANCE')
    actions.push({ label: '去充值', event: { type: 'recharge.open' }, primary: true });
  if (f.retry !== 'load')
    actions.push({ label: '重新选择', event: { type: 'back' }, primary: actions.length === 0 });
  if (
    f.code.startsWith('DEVICE_') ||
    f.code === 'VENUE_MISMATCH' ||
    f.code === 'ORDER_REFUNDED' ||
    f.retry === 'checkStart'
  )
    actions.push({ label: '意见反馈', event: { type: 'feedback.open' } });
  return actions;
}

/** What the confirmation dialog says before any money moves. */
export function selectConfirmText(s: PaySnapshot): string {
  const price = selectedPriceOf(s.context);
  const device = s.context.data?.device;
  if (!price || !device) return '';
  // Names like "30 分钟" already say how long.
  const what = price.name.includes(String(price.minutes))
    ? price.name
    : `${price.name}（${price.minutes} 分钟）`;
  const how = s.context.method === 'wallet' ? '余额支付' : '微信支付';
  return `${device.name} · ${what}，${how} ${formatFen(price.price_fen)}`;
}
