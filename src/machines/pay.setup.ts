/**
 * The implementations named by the pay machine (`pay.machine.ts`): actors, actions, guards, delays and the
 * order polling (on the shared `pollingStates`) of its WeChat-payment and device-start steps.
 *
 * The end-user pay journey on `/user/pay` (docs/decisions.md D7): load the device, venue, prices and the member's
 * wallet; let the user choose; pay from the wallet or with WeChat Pay; wait until the server (never the browser)
 * confirms the payment and the device acknowledges; then hand over to `/user/using`. Every failure ends in
 * `failed` with a Chinese reason and a way forward.
 *
 * No React, no DOM, no storage here: HTTP, the WeChat Pay prompt, persistence of the pay attempt and navigation
 * are actors and actions supplied at the edge with `payMachine.provide(...)`.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { JsapiParams, OrderStatus, PayRequest, PayResponse } from '../domain/api';
import { newIdempotencyKey } from '../domain/idempotency-key';
import { countedPoll, POLL_INTERVAL_MS, pollingStates, pollsLeft } from './shared/polling';
import type {
  LoadOutcome,
  PayAttempt,
  PayContext,
  PayEvent,
  PayFailure,
  PayInput,
  PayMethod,
  PayOutcome,
  Outcome,
  PayPageData,
  PaymentPromptResult,
  QueryOutcome,
  RequestError,
  RetryStage,
} from './pay.types';

/** Statuses after which an order will never start a device. */
const DEAD_STATUSES: readonly OrderStatus['status'][] = ['failed', 'closed', 'refunded'];

/** Where each refusal of `POST /backend/user/pay` leaves the user (their own messages come from the server). */
export function refusal(error: RequestError, retry: RetryStage): PayFailure {
  return { code: error.code, message: error.message, retry };
}

/** The context a pay journey starts with: the device and venue of the page, and a stored attempt if any. */
export function initialPayContext(input: PayInput): PayContext {
  return {
    device_id: input.device_id,
    venue_id: input.venue_id,
    data: null,
    price_id: null,
    method: 'wallet',
    attempt: input.attempt ?? null,
    returned: input.returned ?? null,
    order_status: null,
    polls: 0,
    max_polls: input.max_polls ?? 20,
    failure: null,
    notice: null,
    jsapi: null,
  };
}

/** Wallet balance of the member at the device's merchant (0 when signed in without a wallet there yet). */
export function walletBalanceOf(context: PayContext): number {
  const data = context.data;
  if (!data?.profile) return 0;
  const w = data.profile.wallets.find((x) => x.merchant_id === data.device.merchant_id);
  return w?.balance_fen ?? 0;
}

export function selectedPriceOf(context: PayContext) {
  return context.data?.prices.find((p) => p.id === context.price_id) ?? null;
}

/** The platform stopped the device's merchant: no new payment there (docs/decisions.md D14). */
export function merchantIsClosed(context: PayContext): boolean {
  return context.data?.venue.merchant.status === 'disabled';
}

/** A device can be paid for only when it is online and idle and its merchant is open. */
export function deviceIsAvailable(context: PayContext): boolean {
  const d = context.data?.device;
  return Boolean(d && d.online && d.status === 'idle') && !merchantIsClosed(context);
}

/** The value of an outcome a guard already found `ok`. */
export function okValue<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`unexpected refusal ${outcome.error.code}`);
  return outcome.value;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`${name}: supply it with provide()`));

export const paySetup = setup({
  types: {
    context: {} as PayContext,
    events: {} as PayEvent,
    input: {} as PayInput,
  },
  actors: {
    /** Device, venue and prices (public) and the member's profile (null without a WeChat session), in parallel. */
    loadPage: fromPromise<LoadOutcome, { device_id: number; venue_id: number }>(notProvided('loadPage')),
    /** `POST /backend/user/pay` with the attempt's `Idempotency-Key`. */
    pay: fromPromise<PayOutcome, { request: PayRequest; key: string }>(notProvided('pay')),
    /** Inside WeChat: `getBrandWCPayRequest`; elsewhere the sandbox cashier (the page leaves, nothing resolves). */
    promptPayment: fromPromise<PaymentPromptResult, { jsapi: JsapiParams; order_no: string }>(
      notProvided('promptPayment'),
    ),
    /** `GET /backend/api/query?order_no=`: the server's word on the order. */
    queryOrder: fromPromise<QueryOutcome, { order_no: string }>(notProvided('queryOrder')),
  },
  actions: {
    /** Persist the attempt (sessionStorage at the edge) so a reload resumes it with the same key. */
    saveAttempt: (_, _params: { attempt: PayAttempt }) => {},
    clearAttempt: (_, _params: { device_id: number }) => {},
    goToSignIn: () => {},
    goToRecharge: (_, _params: { merchant_id: number | null }) => {},
    goToFeedback: (_, _params: { device_id: number }) => {},
    goToUsing: (_, _params: { order_no: string | null }) => {},
    storeData: assign(({ context }, data: PayPageData) => {
      const prices = data.prices;
      const kept = context.attempt && prices.some((p) => p.id === context.attempt?.price_id);
      const price_id = kept ? context.attempt!.price_id : (prices[0]?.id ?? null);
      return { data, price_id, method: context.attempt?.method ?? ('wallet' as const), failure: null };
    }),
    beginAttempt: assign(({ context }) => {
      const a = context.attempt;
      const same =
        a &&
        !a.order_no &&
        a.price_id === context.price_id &&
        a.method === context.method &&
        a.device_id === context.device_id;
      const attempt: PayAttempt = same
        ? a
        : {
            key: newIdempotencyKey(),
            device_id: context.device_id,
            venue_id: context.venue_id,
            price_id: context.price_id ?? 0,
            method: context.method,
          };
      return { attempt, notice: null, failure: null };
    }),
    recordOrder: assign(({ context }, answer: PayResponse) => ({
      attempt: context.attempt && { ...context.attempt, order_no: answer.order.order_no },
      order_status: answer.order.status,
      jsapi: answer.jsapi ?? null,
    })),
    forgetAttempt: assign({ attempt: null, returned: null, order_status: null, jsapi: null }),
    fail: assign((_, failure: PayFailure) => ({ failure })),
    resetPolls: assign({ polls: 0 }),
    countPoll: assign(({ context }) => countedPoll(context)),
  },
  guards: {
    isSignedIn: ({ context }) => Boolean(context.data?.profile),
    canSubmit: ({ context }, params: { method: PayMethod }) => {
      const price = selectedPriceOf(context);
      if (!price || !deviceIsAvailable(context) || !context.data?.profile) return false;
      return params.method === 'wechat' || walletBalanceOf(context) >= price.price_fen;
    },
    hasOrderToCheck: ({ context }) =>
      Boolean((context.returned && context.returned !== 'cancel') || context.attempt?.order_no),
    returnedCancelled: ({ context }) => context.returned === 'cancel',
    pollsLeft,
    retryFrom: ({ context }, stage: RetryStage) => context.failure?.retry === stage,
  },
  delays: {
    pollInterval: POLL_INTERVAL_MS,
  },
});

/** Query the order until the server reports it paid or started (or a dead end), a bounded number of times. */
export function orderPolling(stage: 'checkPayment' | 'checkStart') {
  const checking = paySetup.createStateConfig({
    entry: 'countPoll',
    invoke: {
      id: 'queryOrder',
      src: 'queryOrder',
      input: ({ context }) => ({ order_no: context.attempt?.order_no ?? '' }),
      onDone: [
        {
          // A network blip while polling is not a verdict: try again while tries are left.
          guard: ({ event, context }) =>
            !event.output.ok && event.output.error.status !== 404 && pollsLeft({ context }),
          target: 'pausing',
        },
        {
          guard: ({ event }) => !event.output.ok,
          target: '#pay.failed',
          actions: {
            type: 'fail',
            params: ({ event }) =>
              event.output.ok ? refusalUnknown(stage) : refusal(event.output.error, stage),
          },
        },
        {
          guard: ({ event }) =>
            event.output.ok && ['started', 'completed'].includes(event.output.value.status),
          target: '#pay.running',
        },
        {
          guard: ({ event }) => event.output.ok && DEAD_STATUSES.includes(event.output.value.status),
          target: '#pay.failed',
          actions: [
            'forgetAttempt',
            { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
            {
              type: 'fail',
              params: ({ event }) => deadOrder(event.output.ok ? event.output.value.status : 'failed'),
            },
          ],
        },
        {
          guard: ({ event }) =>
            stage === 'checkPayment' && event.output.ok && event.output.value.status === 'paid',
          target: '#pay.starting',
        },
        { guard: 'pollsLeft', target: 'pausing' },
        {
          target: '#pay.failed',
          actions: {
            type: 'fail',
            params: () =>
              stage === 'checkPayment'
                ? { code: 'PAYMENT_PENDING', message: '暂未收到支付结果，请稍后再查询', retry: stage }
                : { code: 'START_PENDING', message: '设备暂未响应启动，请稍后再查询', retry: stage },
          },
        },
      ],
      onError: { target: '#pay.failed', actions: { type: 'fail', params: () => refusalUnknown(stage) } },
    },
  });
  return pollingStates(checking);
}

export function refusalUnknown(retry: RetryStage): PayFailure {
  return { code: 'UNEXPECTED', message: '出了点问题，请重试', retry };
}

function deadOrder(status: OrderStatus['status']): PayFailure {
  return status === 'refunded'
    ? { code: 'ORDER_REFUNDED', message: '设备未能启动，款项已自动退回', retry: 'none' }
    : { code: 'ORDER_CLOSED', message: '订单已关闭，未扣款', retry: 'none' };
}
