/**
 * Public types of the WeChat clients (web OAuth2 sign-in and WeChat Pay API v3 JSAPI). The same client code runs
 * against WeChat in production and against the built-in sandbox (server/sandbox) in development and tests: only the
 * configuration (base URLs, keys) differs. Wire formats and their sources: docs/wechat.md.
 */
import type { Hono } from 'hono';
import type { WechatOAuth } from './oauth.types';
import type { JsapiPayParams, Transaction, WechatPay } from './pay.types';

/** A fetch implementation (global fetch, or `app.request` of a Hono app in tests). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Request headers as Hono, undici or node:http give them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export type * from './oauth.types';
export type * from './pay.types';
export { OAUTH_ERRCODE } from './oauth.types';
export { WechatPayError, WechatPayVerifyError } from './pay.types';

// ---------------------------------------------------------------- the assembled WeChat dependency

/** Test and demo switches of the sandbox's payment notifications. */
export interface SandboxNotifyOptions {
  /** Deliver the same notification twice. */
  duplicate?: boolean;
  /** Before the real one, send a SIGNTEST probe (its signature does not verify). */
  probe?: boolean;
  /**
   * Instead of the real notification, send one whose amount is this (a correctly signed "fake" notice the merchant
   * must refuse by comparing amounts). The transaction is still SUCCESS, so an order query shows the truth.
   */
  wrongAmountFen?: number;
  /** Mark the transaction paid but send no notification (a "late notification": the merchant must query). */
  silent?: boolean;
  /** Wait this long (ms) before the first delivery. */
  delayMs?: number;
  /**
   * How this transaction's refunds end (a comma list): `success` (default), `closed`, `abnormal`, `error` (answered
   * 500 SYSTEM_ERROR), `silent` (no notification), `duplicate` (notified twice), `delay:<ms>` (PROCESSING until then).
   */
  refundOutcome?: string;
}

/** Handle on the sandbox for tests and the demo (present only in sandbox mode). */
export interface WechatSandboxHandle {
  /** Cashier page URL for JSAPI params outside WeChat; `returnPath` is a same-origin path (gets `order_no=`). */
  cashierUrl(params: JsapiPayParams, returnPath: string): string;
  /** What 确认支付 does: marks the transaction paid and sends the notification (resolves once queued). */
  confirmPayment(prepayId: string, opts?: SandboxNotifyOptions): Promise<Transaction>;
  /**
   * Waits until every queued notification was delivered or gave up (tests); rejects after `timeoutMs` (default
   * 30 s). A notification the receiver keeps refusing is retried on the (compressed) schedule until it gives up.
   */
  drainNotifications(timeoutMs?: number): Promise<void>;
  /** Builds a notification for `transaction` signed like WeChat's (or with a probe / bad signature), for tests. */
  signedNotification(
    transaction: Transaction,
    opts?: { signature?: 'valid' | 'probe' | 'bad'; timestampOffsetS?: number; eventType?: string },
  ): { body: string; headers: Record<string, string> };
  /** Signs any body with the sandbox platform key, as WeChat signs notifications (tampering tests). */
  signBody(
    body: string,
    opts?: { signature?: 'valid' | 'probe' | 'bad'; timestampOffsetS?: number },
  ): { body: string; headers: Record<string, string> };
  /** How refunds of the transaction `outTradeNo` end from now on (see SandboxNotifyOptions.refundOutcome). */
  setRefundOutcome(outTradeNo: string, outcome: string | null): Promise<void>;
  /** Stops the delivery timers (resolves after the delivery in flight, if any). */
  stop(): Promise<void>;
}

export interface Wechat {
  mode: 'sandbox' | 'live';
  oauth: WechatOAuth;
  pay: WechatPay;
  /** Mounted at `/backend/sandbox` in sandbox mode (contains `/wechat/*` and `/wechatpay/*`). */
  sandboxRoutes?: Hono;
  sandbox?: WechatSandboxHandle;
}
