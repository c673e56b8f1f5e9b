/**
 * Fixtures and a driver for the pay machine's tests: the API answers the actors may give, and a live actor whose
 * actors are deferred promises the test settles, with a manual clock for the polling delay. The machine itself is
 * the real one; only the edge (HTTP, WeChat bridge, storage, navigation) is supplied here, as the app does.
 */
import { createActor, fromPromise, type PromiseActorLogic } from 'xstate';
import type { PublicDevice, PublicVenue, ServicePrice, UserProfile } from '../../src/domain/api';
import { payMachine } from '../../src/machines/pay.machine';
import type { PaySnapshot } from '../../src/machines/pay.selectors';
import type {
  Outcome,
  PayAttempt,
  PayEvent,
  PayInput,
  PayPageData,
  RequestError,
} from '../../src/machines/pay.types';

export const DEVICE: PublicDevice = {
  id: 1,
  name: '1号充电桩',
  serial: 'SN-0001',
  status: 'idle',
  online: true,
  venue_id: 1,
  merchant_id: 7,
  product: { id: 1, name: '智能充电桩' },
};
export const VENUE: PublicVenue = {
  id: 1,
  name: '东门停车场',
  address: '人民路 1 号',
  merchant: { id: 7, name: '演示商户' },
};
export const PRICES: ServicePrice[] = [
  { id: 11, name: '30分钟', minutes: 30, price_fen: 300 },
  { id: 12, name: '60分钟', minutes: 60, price_fen: 500 },
];

export function profileWith(balance_fen: number): UserProfile {
  return {
    member: { id: 5, nickname: '微信用户', avatar_url: '', code: '12345671' },
    wallets: [
      { merchant_id: 7, merchant_name: '演示商户', balance_fen, principal_fen: balance_fen, bonus_fen: 0 },
    ],
  };
}

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const refused = (status: number, code: string, message: string): Outcome<never> => ({
  ok: false,
  error: { status, code, message } satisfies RequestError,
});

const page = (over: Partial<PayPageData>): PayPageData => ({
  device: DEVICE,
  venue: VENUE,
  prices: PRICES,
  profile: profileWith(1000),
  ...over,
});

/** What `loadPage` may answer. */
export const LOADS = {
  rich: ok(page({})),
  poor: ok(page({ profile: profileWith(100) })),
  anonymous: ok(page({ profile: null })),
  busy: ok(page({ device: { ...DEVICE, status: 'running' } })),
  missing: refused(404, 'NOT_FOUND', '设备不存在'),
};

const jsapi = {
  appId: 'wx-sandbox',
  timeStamp: '1700000000',
  nonceStr: 'n',
  package: 'prepay_id=p1',
  signType: 'RSA' as const,
  paySign: 'sig',
  cashier_url: '/backend/sandbox/cashier?prepay_id=p1',
};

/** What `POST /backend/user/pay` may answer. */
export const PAYS = {
  started: ok({ order: { order_no: 'C1', status: 'started' as const, amount_fen: 300 } }),
  paid: ok({ order: { order_no: 'C1', status: 'paid' as const, amount_fen: 300 } }),
  wechat: ok({ order: { order_no: 'C1', status: 'pending' as const, amount_fen: 300 }, jsapi }),
  signedOut: refused(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权'),
  noAnswer: refused(0, 'TIMEOUT', 'timeout exceeded'),
  short: refused(400, 'INSUFFICIENT_BALANCE', '余额不足，请先充值'),
};

/** What `GET /backend/api/query` may answer. */
export const QUERIES = {
  pending: ok({ status: 'pending' as const }),
  paid: ok({ status: 'paid' as const }),
  started: ok({ status: 'started' as const }),
  refunded: ok({ status: 'refunded' as const }),
  noAnswer: refused(0, 'NETWORK_ERROR', 'Network Error'),
  unknown: refused(404, 'NOT_FOUND', '订单不存在'),
};

/** Every user event with the values the model tries; `satisfies` makes a new event fail to compile until added. */
export const USER_EVENTS = {
  'price.select': [{ type: 'price.select', price_id: 12 }],
  'pay.submit': [
    { type: 'pay.submit', method: 'wallet' },
    { type: 'pay.submit', method: 'wechat' },
  ],
  'pay.confirm': [{ type: 'pay.confirm' }],
  'pay.cancel': [{ type: 'pay.cancel' }],
  'signin.start': [{ type: 'signin.start' }],
  'recharge.open': [{ type: 'recharge.open' }],
  'feedback.open': [{ type: 'feedback.open' }],
  retry: [{ type: 'retry' }],
  back: [{ type: 'back' }],
} satisfies { [T in PayEvent['type']]: Extract<PayEvent, { type: T }>[] };

/**
 * The machine's own actor events, typed as `PayEvent` for the graph's event lists (the machine handles them, but
 * XState keeps them out of the user-event union).
 */
export const done = (id: string, output: unknown) =>
  ({ type: `xstate.done.actor.${id}`, output }) as unknown as PayEvent;
const errored = (id: string) =>
  ({ type: `xstate.error.actor.${id}`, error: new Error('boom') }) as unknown as PayEvent;
const after = (state: string) =>
  ({ type: `xstate.after.pollInterval.pay.${state}.pausing` }) as unknown as PayEvent;

/**
 * The events the model offers in a state: the answers of the actor running there, and the user events the state
 * takes (`can`); ignored events are pinned by the example tests rather than multiplied over every state.
 */
export function eventsFor(s: PaySnapshot): PayEvent[] {
  const user = (Object.values(USER_EVENTS).flat() as PayEvent[]).filter((e) => s.can(e));
  if (s.status !== 'active') return [];
  if (s.matches('loading'))
    return [...Object.values(LOADS).map((o) => done('loadPage', o)), errored('loadPage'), ...user];
  if (s.matches('paying'))
    return [...Object.values(PAYS).map((o) => done('pay', o)), errored('pay'), ...user];
  if (s.matches({ waitingForPayment: 'prompting' }))
    return [
      ...['ok', 'cancel', 'fail'].map((o) => done('promptPayment', o)),
      errored('promptPayment'),
      ...user,
    ];
  if (s.matches({ waitingForPayment: 'checking' }) || s.matches({ starting: 'checking' }))
    return [...Object.values(QUERIES).map((o) => done('queryOrder', o)), errored('queryOrder'), ...user];
  if (s.matches({ waitingForPayment: 'pausing' })) return [after('waitingForPayment'), ...user];
  if (s.matches({ starting: 'pausing' })) return [after('starting'), ...user];
  return user;
}

/** What matters of a snapshot, without the random idempotency key (its reuse is asserted separately). */
export function serializePay(s: PaySnapshot): string {
  const c = s.context;
  const d = c.data;
  return JSON.stringify({
    v: s.value,
    d: d && [d.device.status, d.profile ? walletOf(d.profile) : 'anon'],
    p: c.price_id,
    m: c.method,
    a: c.attempt ? [c.attempt.price_id, c.attempt.method, c.attempt.order_no ?? null] : null,
    r: c.returned,
    n: c.polls,
    f: c.failure && [c.failure.code, c.failure.retry],
    t: c.notice,
    st: s.status,
  });
}
const walletOf = (p: UserProfile) => p.wallets[0]?.balance_fen ?? 0;

/** A clock whose timeouts run only when the test says so. */
export class ManualClock {
  private next = 1;
  readonly timers = new Map<number, () => void>();
  setTimeout(fn: () => void) {
    const id = this.next++;
    this.timers.set(id, fn);
    return id;
  }
  clearTimeout(id: number) {
    this.timers.delete(id);
  }
  /** Runs the one pending timeout (the poll delay). */
  fire() {
    const [first] = this.timers;
    if (!first) throw new Error('no timer pending');
    this.timers.delete(first[0]);
    first[1]();
  }
}

interface Pending {
  input: unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export type EdgeCall = { action: string; params: unknown };

/** A live pay actor with deferred actors, a manual clock and a log of the edge actions it asked for. */
export function startPay(input: Partial<PayInput> = {}) {
  const pending = new Map<string, Pending>();
  const calls: { actor: string; input: unknown }[] = [];
  const edge: EdgeCall[] = [];
  const clock = new ManualClock();
  const deferred = <O, I>(id: string): PromiseActorLogic<O, I> =>
    fromPromise<O, I>(
      ({ input: actorInput }) =>
        new Promise((resolve, reject) => {
          calls.push({ actor: id, input: actorInput });
          pending.set(id, { input: actorInput, resolve: resolve as (v: unknown) => void, reject });
        }),
    );
  const record = (action: string) => (_: unknown, params: unknown) => edge.push({ action, params });
  const machine = payMachine.provide({
    actors: {
      loadPage: deferred('loadPage'),
      pay: deferred('pay'),
      promptPayment: deferred('promptPayment'),
      queryOrder: deferred('queryOrder'),
    },
    actions: {
      saveAttempt: record('saveAttempt'),
      clearAttempt: record('clearAttempt'),
      goToSignIn: record('goToSignIn'),
      goToRecharge: record('goToRecharge'),
      goToFeedback: record('goToFeedback'),
      goToUsing: record('goToUsing'),
    },
  });
  const actor = createActor(machine, {
    input: { device_id: 1, venue_id: 1, max_polls: 2, ...input },
    clock,
  }).start();

  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };

  /** Plays one model event against the live actor: settles the actor it names, fires the clock, or sends it. */
  async function play(event: PayEvent) {
    const m = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (m) {
      const p = pending.get(m[2]!);
      if (!p) throw new Error(`actor ${m[2]} is not running`);
      pending.delete(m[2]!);
      if (m[1] === 'done') p.resolve((event as unknown as { output: unknown }).output);
      else p.reject((event as unknown as { error: unknown }).error);
    } else if (event.type.startsWith('xstate.after.')) {
      clock.fire();
    } else {
      actor.send(event);
    }
    await flush();
  }

  return { actor, play, calls, edge, clock, pending };
}

export const attemptOf = (s: PaySnapshot): PayAttempt | null => s.context.attempt;
