/**
 * The WeChat Pay step at the edge (docs/decisions.md D7). Inside WeChat: `WeixinJSBridge.invoke('getBrandWCPayRequest',
 * ...)` once the bridge is ready. Elsewhere (the sandbox): the cashier page, which sends the browser back to the
 * page with `order_no=` (or `pay=cancel`) appended. Either way the result is only a hint: the machines ask the
 * server whether the money arrived.
 */
import type { JsapiParams } from '../../domain/api';
import type { PaymentPromptResult } from '../../machines/pay.types';

interface WeixinBridge {
  invoke(
    name: 'getBrandWCPayRequest',
    params: Record<string, string>,
    cb: (res: { err_msg?: string }) => void,
  ): void;
}

declare global {
  interface Window {
    WeixinJSBridge?: WeixinBridge;
  }
}

/** How long a WeChat browser may take to announce its bridge before we fall back to the cashier. */
const BRIDGE_WAIT_MS = 1200;

function waitForBridge(): Promise<WeixinBridge | null> {
  if (typeof window.WeixinJSBridge !== 'undefined') return Promise.resolve(window.WeixinJSBridge);
  if (!/MicroMessenger/i.test(navigator.userAgent)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener('WeixinJSBridgeReady', done);
      resolve(window.WeixinJSBridge ?? null);
    };
    const timer = setTimeout(done, BRIDGE_WAIT_MS);
    document.addEventListener('WeixinJSBridgeReady', done, false);
  });
}

/** Runs the WeChat Pay prompt; with the sandbox cashier the page leaves and the promise never settles. */
export async function promptWechatPay(jsapi: JsapiParams): Promise<PaymentPromptResult> {
  const bridge = await waitForBridge();
  if (bridge) {
    const { appId, timeStamp, nonceStr, signType, paySign } = jsapi;
    return new Promise((resolve) => {
      bridge.invoke(
        'getBrandWCPayRequest',
        { appId, timeStamp, nonceStr, package: jsapi.package, signType, paySign },
        (res) => {
          const msg = res.err_msg ?? '';
          resolve(msg.endsWith(':ok') ? 'ok' : msg.endsWith(':cancel') ? 'cancel' : 'fail');
        },
      );
    });
  }
  if (!jsapi.cashier_url) return 'fail';
  window.location.assign(jsapi.cashier_url);
  return new Promise<never>(() => {});
}

/** Reads what the cashier appended to this page's query. */
export function cashierReturn(search: string): { order_no: string } | 'cancel' | null {
  const q = new URLSearchParams(search);
  if (q.get('pay') === 'cancel') return 'cancel';
  const orderNo = q.get('order_no');
  return orderNo ? { order_no: orderNo } : null;
}

/** The same query without the cashier's additions (so a reload does not replay them). */
export function withoutCashierReturn(search: string): string {
  const q = new URLSearchParams(search);
  q.delete('order_no');
  q.delete('pay');
  const s = q.toString();
  return s ? `?${s}` : '';
}
