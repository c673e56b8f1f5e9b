/**
 * The using-page machine (`user-using.machine.ts`), model-based: every edge explored with the fixtures' API answers
 * and the user events each state takes is played on a live actor (real machine, deferred actors, manual clock),
 * and a coverage assertion fails on any edge left unwalked.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type PromiseActorLogic } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import type { UsingSession } from '../../src/domain/api';
import { usingMachine, type UsingEvent, type UsingSnapshot } from '../../src/machines/user-using.machine';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { ManualClock, ok, refused } from './pay.fixtures';

const session = (status: UsingSession['status']): UsingSession => ({
  order_no: 'C1',
  device_id: 1,
  device_name: '1号充电桩',
  minutes: 30,
  amount_fen: 300,
  started_at: status === 'running' ? '2026-01-01T00:00:00.000Z' : null,
  ends_at: status === 'running' ? '2026-01-01T00:30:00.000Z' : null,
  status,
});

const ev = (type: string, extra: Record<string, unknown> = {}) =>
  ({ type, ...extra }) as unknown as UsingEvent;
const done = (id: string, output: unknown) => ev(`xstate.done.actor.${id}`, { output });
const errored = (id: string) => ev(`xstate.error.actor.${id}`, { error: new Error('boom') });

const USER_EVENTS = {
  refresh: [{ type: 'refresh' }],
  retry: [{ type: 'retry' }],
  'stop.ask': [{ type: 'stop.ask', order_no: 'C1' }],
  'stop.confirm': [{ type: 'stop.confirm' }],
  'stop.cancel': [{ type: 'stop.cancel' }],
  'signin.start': [{ type: 'signin.start' }],
} satisfies { [T in UsingEvent['type']]: Extract<UsingEvent, { type: T }>[] };

function eventsFor(s: UsingSnapshot): UsingEvent[] {
  const user = (Object.values(USER_EVENTS).flat() as UsingEvent[]).filter((e) => s.can(e));
  if (s.matches('loading'))
    return [
      done('loadUsing', ok({ items: [session('running')], skew_ms: 0 })),
      done('loadUsing', ok({ items: [session('starting')], skew_ms: 0 })),
      done('loadUsing', ok({ items: [], skew_ms: 0 })),
      done('loadUsing', refused(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权')),
      done('loadUsing', refused(0, 'NETWORK_ERROR', 'Network Error')),
      errored('loadUsing'),
      ...user,
    ];
  if (s.matches('stopping'))
    return [
      done('stopSession', ok({ ...session('stopped'), refund_fen: 150, refund_to: 'wallet' })),
      done('stopSession', refused(409, 'SESSION_NOT_RUNNING', '设备不在运行中，无法结束使用')),
      errored('stopSession'),
      ...user,
    ];
  if (s.matches('ready') && s.context.list?.items.some((i) => i.status === 'starting'))
    return [ev('xstate.after.startingPoll.using.ready'), ...user];
  return user;
}

const serialize = (s: UsingSnapshot) =>
  JSON.stringify([
    s.value,
    s.context.list?.items.map((i) => i.status) ?? null,
    s.context.error?.code ?? null,
    s.context.stopping,
    s.context.result,
  ]);

function startUsing() {
  const pending = new Map<
    string,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void; input: unknown }
  >();
  const edge: string[] = [];
  const clock = new ManualClock();
  const deferred = <O, I>(id: string): PromiseActorLogic<O, I> =>
    fromPromise<O, I>(
      ({ input }) =>
        new Promise<O>((resolve, reject) =>
          pending.set(id, { resolve: resolve as (v: unknown) => void, reject, input }),
        ),
    );
  const actor = createActor(
    usingMachine.provide({
      actors: { loadUsing: deferred('loadUsing'), stopSession: deferred('stopSession') },
      actions: { goToSignIn: () => edge.push('goToSignIn') },
    }),
    { clock },
  ).start();
  async function play(e: UsingEvent) {
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

describe('using machine (model-based)', () => {
  it('walks every edge on a live actor', async () => {
    const adj = getAdjacencyMap(usingMachine, { events: eventsFor, serializeState: serialize, limit: 5000 });
    const start = Object.values(adj)[0]!.state as UsingSnapshot;
    const walked = new Set<string>();
    for (const path of edgePaths(adj, start, serialize)) {
      if (path.edge && walked.has(path.edge)) continue;
      const live = startUsing();
      for (const step of path.steps) {
        const before = live.actor.getSnapshot();
        await live.play(step.event);
        const after = live.actor.getSnapshot();
        expect(serialize(after), `${path.edge} / ${JSON.stringify(step.event)}`).toBe(serialize(step.state));
        walked.add(walkedEdge(before, step.event, after, serialize));
      }
      live.actor.stop();
    }
    expect(uncoveredEdges(adj, walked, serialize)).toEqual([]);
    expect(walked.size).toBeGreaterThan(10);
  }, 60_000);

  it('stops only a running session of the list, and reports the refund', async () => {
    const t = startUsing();
    await t.play(done('loadUsing', ok({ items: [session('running')], skew_ms: 0 })));
    t.actor.send({ type: 'stop.ask', order_no: 'other' });
    expect(t.actor.getSnapshot().matches('ready')).toBe(true);
    await t.play({ type: 'stop.ask', order_no: 'C1' });
    await t.play({ type: 'stop.confirm' });
    expect(t.pending.get('stopSession')?.input).toEqual({ order_no: 'C1' });
    await t.play(done('stopSession', ok({ ...session('stopped'), refund_fen: 150, refund_to: 'wechat' })));
    expect(t.actor.getSnapshot().context.result).toEqual({ ok: true, refund_fen: 150, refund_to: 'wechat' });
    expect(t.actor.getSnapshot().matches('loading')).toBe(true);
  });
});
