/**
 * The recharge machine (`user-recharge.machine.ts`), model-based like the pay machine: every edge of its adjacency
 * map, explored with the fixtures' API answers and the user events each state takes, is played on a live actor
 * (real machine, deferred actors, manual clock) and a coverage assertion fails on any edge left unwalked.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type PromiseActorLogic } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import {
  rechargeMachine,
  type RechargeEvent,
  type RechargeInput,
  type RechargeSnapshot,
} from '../../src/machines/user-recharge.machine';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { ManualClock, ok, refused } from './pay.fixtures';

const PACKAGES = [{ id: 1, name: '充50送5', pay_fen: 5000, bonus_fen: 500 }];
const jsapi = {
  appId: 'wx',
  timeStamp: '1',
  nonceStr: 'n',
  package: 'prepay_id=r1',
  signType: 'RSA' as const,
  paySign: 's',
  cashier_url: '/backend/sandbox/cashier',
};

const ev = (type: string, extra: Record<string, unknown> = {}) =>
  ({ type, ...extra }) as unknown as RechargeEvent;
const done = (id: string, output: unknown) => ev(`xstate.done.actor.${id}`, { output });
const errored = (id: string) => ev(`xstate.error.actor.${id}`, { error: new Error('boom') });

const USER_EVENTS = {
  'recharge.open': [{ type: 'recharge.open', merchant_id: 7 }],
  'package.select': [{ type: 'package.select', package_id: 1 }],
  'recharge.close': [{ type: 'recharge.close' }],
  retry: [{ type: 'retry' }],
} satisfies { [T in RechargeEvent['type']]: Extract<RechargeEvent, { type: T }>[] };

function eventsFor(s: RechargeSnapshot): RechargeEvent[] {
  if (s.status !== 'active') return [];
  const user = (Object.values(USER_EVENTS).flat() as RechargeEvent[]).filter((e) => s.can(e));
  const answers: Record<string, RechargeEvent[]> = {
    loadingPackages: [
      done('loadPackages', ok(PACKAGES)),
      done('loadPackages', ok([])),
      done('loadPackages', refused(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权')),
      done('loadPackages', refused(0, 'NETWORK_ERROR', 'Network Error')),
      errored('loadPackages'),
    ],
    paying: [
      done('recharge', ok({ order: { order_no: 'R1', status: 'pending', amount_fen: 5000 }, jsapi })),
      done('recharge', refused(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权')),
      done('recharge', refused(0, 'TIMEOUT', 'timeout exceeded')),
      done('recharge', refused(400, 'VALIDATION_FAILED', '套餐不存在')),
      errored('recharge'),
    ],
    prompting: ['ok', 'cancel', 'fail'].map((o) => done('promptPayment', o)).concat(errored('promptPayment')),
    checking: [
      ...['paid', 'pending', 'closed'].map((status) => done('queryOrder', ok({ status }))),
      done('queryOrder', refused(404, 'NOT_FOUND', '订单不存在')),
      errored('queryOrder'),
    ],
    pausing: [ev('xstate.after.pollInterval.recharge.pausing')],
  };
  return [...(answers[String(s.value)] ?? []), ...user];
}

function serialize(s: RechargeSnapshot): string {
  const c = s.context;
  return JSON.stringify([
    s.value,
    c.merchant_id,
    c.packages.length,
    c.package_id,
    c.key !== null,
    c.order_no,
    c.polls,
    c.error && [c.error.code, c.error.retry],
    c.notice,
  ]);
}

function startRecharge(input: RechargeInput) {
  const pending = new Map<
    string,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void; input: unknown }
  >();
  const edge: string[] = [];
  const clock = new ManualClock();
  const deferred = <O, I>(id: string): PromiseActorLogic<O, I> =>
    fromPromise<O, I>(
      ({ input: i }) =>
        new Promise<O>((resolve, reject) =>
          pending.set(id, { resolve: resolve as (v: unknown) => void, reject, input: i }),
        ),
    );
  const actor = createActor(
    rechargeMachine.provide({
      actors: {
        loadPackages: deferred('loadPackages'),
        recharge: deferred('recharge'),
        promptPayment: deferred('promptPayment'),
        queryOrder: deferred('queryOrder'),
      },
      actions: { goToSignIn: () => edge.push('goToSignIn'), recharged: () => edge.push('recharged') },
    }),
    { input, clock },
  ).start();
  async function play(e: RechargeEvent) {
    const m = /^xstate\.(done|error)\.actor\.(.+)$/.exec(e.type);
    if (m) {
      const p = pending.get(m[2]!);
      if (!p) throw new Error(`actor ${m[2]} is not running`);
      pending.delete(m[2]!);
      const x = e as unknown as { output?: unknown; error?: unknown };
      if (m[1] === 'done') p.resolve(x.output);
      else p.reject(x.error);
    } else if (e.type.startsWith('xstate.after.')) clock.fire();
    else actor.send(e);
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
  return { actor, play, pending, edge };
}

const INPUTS: [string, RechargeInput][] = [
  ['a fresh profile', { max_polls: 2 }],
  ['the pay page asking for a merchant', { merchant_id: 7, max_polls: 2 }],
  ['back from the cashier with an order', { returned: { order_no: 'R9' }, max_polls: 2 }],
  ['back from the cashier cancelled', { returned: 'cancel', max_polls: 2 }],
];

describe('recharge machine (model-based)', () => {
  it.each(INPUTS)(
    'walks every edge of %s on a live actor',
    async (_name, input) => {
      const adj = getAdjacencyMap(rechargeMachine, {
        input,
        events: eventsFor,
        serializeState: serialize,
        limit: 5000,
      });
      const start = Object.values(adj)[0]!.state as RechargeSnapshot;
      const walked = new Set<string>();
      for (const path of edgePaths(adj, start, serialize)) {
        if (path.edge && walked.has(path.edge)) continue;
        const live = startRecharge(input);
        expect(serialize(live.actor.getSnapshot())).toBe(serialize(path.start));
        for (const step of path.steps) {
          const before = live.actor.getSnapshot();
          await live.play(step.event);
          const after = live.actor.getSnapshot();
          expect(serialize(after), `${path.edge} / ${JSON.stringify(step.event)}`).toBe(
            serialize(step.state),
          );
          walked.add(walkedEdge(before, step.event, after, serialize));
        }
        live.actor.stop();
      }
      expect(uncoveredEdges(adj, walked, serialize)).toEqual([]);
    },
    60_000,
  );
});

describe('recharge machine (examples)', () => {
  it('one key per chosen package, kept when the same request is retried after no answer', async () => {
    const t = startRecharge({ merchant_id: 7 });
    await t.play(done('loadPackages', ok(PACKAGES)));
    await t.play({ type: 'package.select', package_id: 1 });
    const first = t.pending.get('recharge')!.input as { key: string; package_id: number };
    expect(first).toMatchObject({ merchant_id: 7, package_id: 1 });
    await t.play(done('recharge', refused(0, 'TIMEOUT', 'timeout exceeded')));
    expect(t.actor.getSnapshot().context.error?.retry).toBe('pay');
    await t.play({ type: 'retry' });
    expect((t.pending.get('recharge')!.input as { key: string }).key).toBe(first.key);
  });

  it('back from the cashier: the order is checked with the server, then the wallets are reloaded', async () => {
    const t = startRecharge({ returned: { order_no: 'R9' } });
    expect(t.pending.get('queryOrder')?.input).toEqual({ order_no: 'R9' });
    await t.play(done('queryOrder', ok({ status: 'paid' })));
    expect(t.actor.getSnapshot().matches('done')).toBe(true);
    expect(t.actor.getSnapshot().context.notice).toBe('充值成功');
    expect(t.edge).toEqual(['recharged']);
  });

  it('no session: packages ask for WeChat sign-in', async () => {
    const t = startRecharge({ merchant_id: 7 });
    await t.play(done('loadPackages', refused(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权')));
    expect(t.edge).toEqual(['goToSignIn']);
    expect(t.actor.getSnapshot().matches('idle')).toBe(true);
  });
});
