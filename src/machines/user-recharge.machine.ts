/**
 * A member's recharge at one merchant (`/user/profile`): the merchant's packages (pay X, get Y bonus), one
 * `POST /backend/user/recharge` with an Idempotency-Key, the WeChat Pay step (bridge or sandbox cashier), and the
 * server asked until it booked the money. The wallet is refreshed by the screen when this machine reports `done`.
 * HTTP, the WeChat prompt and navigation are supplied at the edge with `provide(...)`.
 */
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { JsapiParams, OrderStatus, RechargePackage, RechargeResponse } from '../domain/api';
import { newIdempotencyKey } from '../domain/idempotency-key';
import type { Outcome, PaymentPromptResult, RequestError } from './pay.types';
import {
  countedPoll,
  type PollingContext,
  POLL_INTERVAL_MS,
  pollingStates,
  pollsLeft,
} from './shared/polling';

export interface RechargeContext extends PollingContext {
  merchant_id: number | null;
  packages: RechargePackage[];
  package_id: number | null;
  key: string | null;
  order_no: string | null;
  jsapi: JsapiParams | null;
  error: { code: string; message: string; retry: 'load' | 'pay' | 'check' | 'none' } | null;
  notice: string | null;
}

export type RechargeEvent =
  | { type: 'recharge.open'; merchant_id: number }
  | { type: 'package.select'; package_id: number }
  | { type: 'recharge.close' }
  | { type: 'retry' };

export interface RechargeInput {
  /** Back from the sandbox cashier: `order_no=` (to check) or `pay=cancel`. */
  returned?: { order_no: string } | 'cancel' | null;
  /** Open the packages of this merchant right away (the pay page's 充值 link). */
  merchant_id?: number | null;
  max_polls?: number;
}

type Retry = NonNullable<RechargeContext['error']>['retry'];
const failWith = (error: Pick<RequestError, 'code' | 'message'> | null, retry: Retry) => ({
  type: 'fail' as const,
  params: error
    ? { code: error.code, message: error.message, retry }
    : { code: 'UNEXPECTED', message: '出了点问题，请重试', retry },
});

/** The `fail` action from a call's outcome: its error (with the retry `retry` picks for it), else the unexpected. */
const failFromOutcome = (retry: (error: RequestError | null) => Retry) => ({
  type: 'fail' as const,
  params: ({ event }: { event: { output: Outcome<unknown> } }) => {
    const error = event.output.ok ? null : event.output.error;
    return failWith(error, retry(error)).params;
  },
});

const notProvided = (name: string) => () => Promise.reject(new Error(`${name}: supply it with provide()`));

const rechargeSetup = setup({
  types: {
    context: {} as RechargeContext,
    events: {} as RechargeEvent,
    input: {} as RechargeInput,
  },
  actors: {
    loadPackages: fromPromise<Outcome<RechargePackage[]>, { merchant_id: number }>(
      notProvided('loadPackages'),
    ),
    recharge: fromPromise<
      Outcome<RechargeResponse>,
      { merchant_id: number; package_id: number; key: string }
    >(notProvided('recharge')),
    promptPayment: fromPromise<PaymentPromptResult, { jsapi: JsapiParams; order_no: string }>(
      notProvided('promptPayment'),
    ),
    queryOrder: fromPromise<Outcome<{ status: OrderStatus['status'] }>, { order_no: string }>(
      notProvided('queryOrder'),
    ),
  },
  actions: {
    goToSignIn: () => {},
    /** Tell the screen the money is in (it reloads the wallets). */
    recharged: (_, _params: { order_no: string | null }) => {},
    fail: assign((_, error: NonNullable<RechargeContext['error']>) => ({ error })),
  },
  guards: { pollsLeft },
  delays: { pollInterval: POLL_INTERVAL_MS },
});

/** Ask the server until it booked the money (or refused), a bounded number of times. */
const checkingBooking = rechargeSetup.createStateConfig({
  entry: assign(({ context }) => ({ ...countedPoll(context), error: null })),
  invoke: {
    id: 'queryOrder',
    src: 'queryOrder',
    input: ({ context }) => ({ order_no: context.order_no ?? '' }),
    onDone: [
      {
        guard: ({ event }) => event.output.ok && ['paid', 'completed'].includes(event.output.value.status),
        target: 'done',
      },
      {
        guard: ({ event }) =>
          event.output.ok && ['failed', 'closed', 'refunded'].includes(event.output.value.status),
        target: 'failed',
        actions: failWith({ code: 'ORDER_CLOSED', message: '充值未成功，未扣款' }, 'none'),
      },
      {
        guard: ({ event }) => !event.output.ok && event.output.error.status === 404,
        target: 'failed',
        actions: failWith({ code: 'NOT_FOUND', message: '订单不存在' }, 'none'),
      },
      { guard: 'pollsLeft', target: 'pausing' },
      {
        target: 'failed',
        actions: failWith({ code: 'PAYMENT_PENDING', message: '暂未收到支付结果，请稍后再查询' }, 'check'),
      },
    ],
    onError: { target: 'failed', actions: failWith(null, 'check') },
  },
});
const bookingPolling = pollingStates(checkingBooking);

/** Owns one recharge, from the package list to the server's confirmation. */
export const rechargeMachine = rechargeSetup.createMachine({
  id: 'recharge',
  context: ({ input }) => ({
    merchant_id: input.merchant_id ?? null,
    packages: [],
    package_id: null,
    key: null,
    order_no: input.returned && input.returned !== 'cancel' ? input.returned.order_no : null,
    jsapi: null,
    polls: 0,
    max_polls: input.max_polls ?? 20,
    error: null,
    notice: input.returned === 'cancel' ? '已取消充值' : null,
  }),
  initial: 'start',
  states: {
    start: {
      always: [
        { guard: ({ context }) => context.order_no !== null, target: 'checking' },
        { guard: ({ context }) => context.merchant_id !== null, target: 'loadingPackages' },
        { target: 'idle' },
      ],
    },
    idle: {
      on: {
        'recharge.open': {
          target: 'loadingPackages',
          actions: assign({ merchant_id: ({ event }) => event.merchant_id, notice: null }),
        },
      },
    },
    loadingPackages: {
      entry: assign({ error: null, packages: [] }),
      invoke: {
        id: 'loadPackages',
        src: 'loadPackages',
        input: ({ context }) => ({ merchant_id: context.merchant_id ?? 0 }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'choosing',
            actions: assign({ packages: ({ event }) => (event.output.ok ? event.output.value : []) }),
          },
          {
            guard: ({ event }) => !event.output.ok && event.output.error.status === 401,
            target: 'idle',
            actions: 'goToSignIn',
          },
          { target: 'failed', actions: failFromOutcome(() => 'load') },
        ],
        onError: { target: 'failed', actions: failWith(null, 'load') },
      },
    },
    choosing: {
      on: {
        'package.select': {
          guard: ({ context, event }) => context.packages.some((p) => p.id === event.package_id),
          target: 'paying',
          actions: assign({ package_id: ({ event }) => event.package_id, key: () => newIdempotencyKey() }),
        },
        'recharge.close': 'idle',
        'recharge.open': {
          target: 'loadingPackages',
          actions: assign({ merchant_id: ({ event }) => event.merchant_id }),
        },
      },
    },
    paying: {
      invoke: {
        id: 'recharge',
        src: 'recharge',
        input: ({ context }) => ({
          merchant_id: context.merchant_id ?? 0,
          package_id: context.package_id ?? 0,
          key: context.key ?? '',
        }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'prompting',
            actions: assign(({ event }) =>
              event.output.ok
                ? { order_no: event.output.value.order.order_no, jsapi: event.output.value.jsapi }
                : {},
            ),
          },
          {
            guard: ({ event }) => !event.output.ok && event.output.error.status === 401,
            target: 'idle',
            actions: 'goToSignIn',
          },
          {
            target: 'failed',
            // No answer: the same key may be retried safely; a clear refusal starts over.
            actions: failFromOutcome((error) => (error?.status === 0 ? 'pay' : 'none')),
          },
        ],
        onError: { target: 'failed', actions: failWith(null, 'pay') },
      },
    },
    prompting: {
      // A new payment gets the full number of order queries.
      entry: assign({ polls: 0 }),
      invoke: {
        id: 'promptPayment',
        src: 'promptPayment',
        input: ({ context }) => ({ jsapi: context.jsapi!, order_no: context.order_no ?? '' }),
        onDone: [
          { guard: ({ event }) => event.output === 'ok', target: 'checking' },
          {
            guard: ({ event }) => event.output === 'cancel',
            target: 'idle',
            actions: assign({ notice: '已取消充值' }),
          },
          {
            target: 'failed',
            actions: failWith({ code: 'PAYMENT_FAILED', message: '微信支付未完成' }, 'pay'),
          },
        ],
        onError: { target: 'failed', actions: failWith(null, 'pay') },
      },
    },
    ...bookingPolling.states,
    done: {
      entry: [
        assign({ notice: '充值成功', polls: 0 }),
        { type: 'recharged', params: ({ context }) => ({ order_no: context.order_no }) },
      ],
      on: {
        'recharge.open': {
          target: 'loadingPackages',
          actions: assign({ merchant_id: ({ event }) => event.merchant_id, notice: null }),
        },
        'recharge.close': { target: 'idle', actions: assign({ notice: null }) },
      },
    },
    failed: {
      on: {
        retry: [
          { guard: ({ context }) => context.error?.retry === 'load', target: 'loadingPackages' },
          { guard: ({ context }) => context.error?.retry === 'pay', target: 'paying' },
          {
            guard: ({ context }) => context.error?.retry === 'check',
            target: 'checking',
            actions: assign({ polls: 0 }),
          },
        ],
        'recharge.open': {
          target: 'loadingPackages',
          actions: assign({ merchant_id: ({ event }) => event.merchant_id }),
        },
        'recharge.close': { target: 'idle', actions: assign({ error: null }) },
      },
    },
  },
});

export type RechargeSnapshot = SnapshotFrom<typeof rechargeMachine>;
