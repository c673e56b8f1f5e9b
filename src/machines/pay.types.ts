/**
 * Types of the pay machine (`pay.machine.ts`): its input, context, events and the values its actors return.
 * Kept apart so screens, selectors and tests can import them without pulling the machine in.
 */
import type { JsapiParams, OrderStatus, PayPageData, PayResponse } from '../domain/api';
import type { Outcome, RequestError } from '../domain/outcome';

export type { Outcome, PayPageData, RequestError };

export type PayMethod = 'wallet' | 'wechat';

/**
 * One pay attempt. Its `key` is the `Idempotency-Key` of `POST /backend/user/pay`: generated once when the user
 * confirms, kept across retries and page reloads (the edge stores the attempt in sessionStorage), so a double tap,
 * a retry after a timeout or a reload never pays twice.
 */
export interface PayAttempt {
  key: string;
  device_id: number;
  venue_id: number;
  price_id: number;
  method: PayMethod;
  /** Set once the server answered with an order. */
  order_no?: string;
}

/** What the WeChat payment step reports: inside WeChat the bridge answers; the sandbox cashier leaves the page. */
export type PaymentPromptResult = 'ok' | 'cancel' | 'fail';

/** Where a failure may be retried from. */
export type RetryStage = 'load' | 'pay' | 'checkPayment' | 'checkStart' | 'none';

export interface PayFailure {
  /** An API error code (INSUFFICIENT_BALANCE, DEVICE_BUSY, ...) or one of the machine's own reasons. */
  code: string;
  /** Chinese text shown to the user. */
  message: string;
  retry: RetryStage;
}

export interface PayInput {
  device_id: number;
  venue_id: number;
  /** An unfinished attempt restored from sessionStorage for this device (a reload, or back from the cashier). */
  attempt?: PayAttempt | null;
  /** The sandbox cashier sends the browser back with `order_no=` (paid) or `pay=cancel`. */
  returned?: { order_no: string } | 'cancel' | null;
  /** How many times the order is queried before the machine gives up with a clear message (default 20). */
  max_polls?: number;
}

export interface PayContext {
  device_id: number;
  venue_id: number;
  data: PayPageData | null;
  price_id: number | null;
  method: PayMethod;
  attempt: PayAttempt | null;
  returned: PayInput['returned'];
  /** The last order status the server reported (pending, paid, started...). */
  order_status: OrderStatus['status'] | null;
  polls: number;
  max_polls: number;
  failure: PayFailure | null;
  /** A short notice on the choosing screen (e.g. the user cancelled the payment). */
  notice: string | null;
  /** The JSAPI parameters of the current WeChat Pay order. */
  jsapi: JsapiParams | null;
}

export type PayEvent =
  | { type: 'price.select'; price_id: number }
  | { type: 'pay.submit'; method: PayMethod }
  | { type: 'pay.confirm' }
  | { type: 'pay.cancel' }
  | { type: 'signin.start' }
  | { type: 'recharge.open' }
  | { type: 'feedback.open' }
  | { type: 'retry' }
  | { type: 'back' };

export type PayOutcome = Outcome<PayResponse>;
export type QueryOutcome = Outcome<{ status: OrderStatus['status'] }>;
export type LoadOutcome = Outcome<PayPageData>;
