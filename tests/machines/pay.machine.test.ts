/**
 * The pay machine, model-based: `xstate/graph` explores every state reachable with the fixtures' API answers and
 * user events; one path per edge is then played on a live actor (real machine, deferred actors, manual clock) and
 * every step must land where the model says. A coverage assertion fails on any edge left unwalked.
 * Example tests below pin the money rules: one Idempotency-Key per attempt, bounded polling, no pay without sign-in.
 */
import { describe, expect, it } from 'vitest';
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { payMachine } from '../../src/machines/pay.machine';
import {
  selectForwardActions,
  selectProgressText,
  selectView,
  selectWalletPay,
  type PaySnapshot,
} from '../../src/machines/pay.selectors';
import type { PayEvent, PayInput } from '../../src/machines/pay.types';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { LOADS, PAYS, QUERIES, done, eventsFor, serializePay, startPay } from './pay.fixtures';

function modelOf(input: Partial<PayInput>) {
  const full: PayInput = { device_id: 1, venue_id: 1, max_polls: 2, ...input };
  const adj = getAdjacencyMap(payMachine, { input: full, events: eventsFor, serializeState: serializePay });
  const start = Object.values(adj)[0]!.state as PaySnapshot;
  return { adj, start, input: full };
}

/** Plays every edge path of a model on live actors; returns the ids of the edges walked. */
async function walkModel(model: ReturnType<typeof modelOf>): Promise<Set<string>> {
  const walked = new Set<string>();
  const paths = edgePaths(model.adj, model.start, serializePay);
  for (const path of paths) {
    // An edge already walked as part of an earlier path needs no path of its own.
    if (path.edge && walked.has(path.edge)) continue;
    const live = startPay(model.input);
    expect(serializePay(live.actor.getSnapshot())).toBe(serializePay(path.start));
    for (const [i, step] of path.steps.entries()) {
      const before = live.actor.getSnapshot();
      await live.play(step.event);
      const after = live.actor.getSnapshot();
      const got = serializePay(after);
      if (got !== serializePay(step.state)) {
        throw new Error(
          `path ${path.edge}\nstep ${i} ${JSON.stringify(step.event)}\nexpected ${serializePay(step.state)}\ngot      ${got}`,
        );
      }
      walked.add(walkedEdge(before, step.event, after, serializePay));
    }
    live.actor.stop();
  }
  return walked;
}

describe('pay machine (model-based)', () => {
  const fresh = modelOf({});
  const fromCashier = modelOf({ returned: { order_no: 'W9' } });
  const cancelled = modelOf({ returned: 'cancel' });

  it('reaches every state the journey names', () => {
    const views = new Set(Object.values(fresh.adj).map((n) => selectView(n.state as PaySnapshot)));
    expect([...views].sort()).toEqual(
      [
        'choosing',
        'confirming',
        'failed',
        'loading',
        'paying',
        'running',
        'starting',
        'waitingForPayment',
      ].sort(),
    );
  });

  it.each([
    ['a fresh page', fresh],
    ['back from the cashier with an order', fromCashier],
    ['back from the cashier cancelled', cancelled],
  ])(
    'walks every edge of %s on a live actor',
    async (_name, model) => {
      const walked = await walkModel(model);
      expect(uncoveredEdges(model.adj, walked, serializePay)).toEqual([]);
      expect(walked.size).toBeGreaterThan(20);
    },
    60_000,
  );

  it('never reaches running without the server saying started', () => {
    for (const path of getShortestPaths(payMachine, {
      input: fresh.input,
      events: eventsFor,
      serializeState: serializePay,
      toState: (s) => s.matches('running'),
    })) {
      if (!path.state.matches('running')) continue;
      const last = path.steps.at(-1)!.event as unknown as {
        output?: { ok: boolean; value?: { status?: string; order?: { status: string } } };
      };
      const said = last.output?.value?.status ?? last.output?.value?.order?.status;
      expect(['started', 'completed']).toContain(said);
    }
  });
});

describe('pay machine (examples)', () => {
  async function toConfirm(
    load = LOADS.rich,
    method: 'wallet' | 'wechat' = 'wallet',
    input: Partial<PayInput> = {},
  ) {
    const t = startPay(input);
    await t.play(done('loadPage', load));
    await t.play({ type: 'pay.submit', method } satisfies PayEvent);
    return t;
  }

  it('keeps one Idempotency-Key across a retry after no answer, saved before the request', async () => {
    const t = await toConfirm();
    await t.play({ type: 'pay.confirm' });
    const key = t.actor.getSnapshot().context.attempt!.key;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.edge.find((c) => c.action === 'saveAttempt')?.params).toMatchObject({
      attempt: { key, price_id: 11 },
    });
    await t.play(done('pay', PAYS.noAnswer));
    expect(selectView(t.actor.getSnapshot())).toBe('failed');
    expect(selectForwardActions(t.actor.getSnapshot()).map((a) => a.label)).toContain('重试');
    await t.play({ type: 'retry' });
    await t.play(done('pay', PAYS.started));
    const pays = t.calls.filter((c) => c.actor === 'pay');
    expect(pays.map((c) => (c.input as { key: string }).key)).toEqual([key, key]);
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.edge.at(-1)).toEqual({ action: 'goToUsing', params: { order_no: 'C1' } });
  });

  it('a double confirm sends one request', async () => {
    const t = await toConfirm();
    await t.play({ type: 'pay.confirm' });
    await t.play({ type: 'pay.confirm' });
    expect(t.calls.filter((c) => c.actor === 'pay')).toHaveLength(1);
  });

  it('reuses a restored attempt after a reload, and starts a new one after a refusal', async () => {
    const restored = {
      key: 'k-restored',
      device_id: 1,
      venue_id: 1,
      price_id: 11,
      method: 'wallet' as const,
    };
    const t = await toConfirm(LOADS.rich, 'wallet', { attempt: restored });
    await t.play({ type: 'pay.confirm' });
    expect((t.calls.at(-1)!.input as { key: string }).key).toBe('k-restored');
    await t.play(done('pay', PAYS.short));
    const s = t.actor.getSnapshot();
    expect(s.context.failure).toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: '余额不足，请先充值' });
    expect(selectForwardActions(s).map((a) => a.label)).toEqual(['去充值', '重新选择']);
    expect(t.edge.some((c) => c.action === 'clearAttempt')).toBe(true);
    await t.play({ type: 'back' });
    await t.play(done('loadPage', LOADS.rich));
    await t.play({ type: 'pay.submit', method: 'wallet' });
    await t.play({ type: 'pay.confirm' });
    expect((t.calls.at(-1)!.input as { key: string }).key).not.toBe('k-restored');
  });

  it('wallet pay disabled with a reason when the balance is short; no sign-in means 微信登录 first', async () => {
    const poor = startPay();
    await poor.play(done('loadPage', LOADS.poor));
    expect(selectWalletPay(poor.actor.getSnapshot())).toEqual({
      enabled: false,
      reason: '余额不足',
      shortBy: 200,
    });
    await poor.play({ type: 'pay.submit', method: 'wallet' });
    expect(selectView(poor.actor.getSnapshot())).toBe('choosing');

    const anon = startPay();
    await anon.play(done('loadPage', LOADS.anonymous));
    await anon.play({ type: 'pay.submit', method: 'wechat' });
    expect(selectView(anon.actor.getSnapshot())).toBe('choosing');
    expect(anon.edge).toEqual([{ action: 'goToSignIn', params: undefined }]);
  });

  it('WeChat Pay: prompt, then the server is polled a bounded number of times', async () => {
    const t = await toConfirm(LOADS.poor, 'wechat');
    await t.play({ type: 'pay.confirm' });
    await t.play(done('pay', PAYS.wechat));
    expect(selectProgressText(t.actor.getSnapshot())).toBe('正在调起微信支付…');
    expect(t.pending.get('promptPayment')?.input).toMatchObject({
      order_no: 'C1',
      jsapi: { package: 'prepay_id=p1' },
    });
    await t.play(done('promptPayment', 'ok'));
    await t.play(done('queryOrder', QUERIES.pending));
    await t.play({ type: 'xstate.after.pollInterval.pay.waitingForPayment.pausing' } as unknown as PayEvent);
    await t.play(done('queryOrder', QUERIES.pending));
    const s = t.actor.getSnapshot();
    expect(s.context.failure).toMatchObject({ code: 'PAYMENT_PENDING', retry: 'checkPayment' });
    expect(selectForwardActions(s)[0]).toMatchObject({ label: '再次查询' });
    await t.play({ type: 'retry' });
    await t.play(done('queryOrder', QUERIES.paid));
    expect(selectProgressText(t.actor.getSnapshot())).toBe('支付成功，正在启动设备…');
    await t.play(done('queryOrder', QUERIES.started));
    expect(t.edge.at(-1)).toEqual({ action: 'goToUsing', params: { order_no: 'C1' } });
    expect(t.calls.filter((c) => c.actor === 'queryOrder').map((c) => c.input)).toEqual(
      Array(4).fill({ order_no: 'C1' }),
    );
  });

  it('back from the cashier: the returned order is checked, never trusted', async () => {
    const t = startPay({ returned: { order_no: 'W9' } });
    await t.play(done('loadPage', LOADS.rich));
    expect(t.pending.get('queryOrder')?.input).toEqual({ order_no: 'W9' });
    await t.play(done('queryOrder', QUERIES.refunded));
    expect(t.actor.getSnapshot().context.failure).toMatchObject({ code: 'ORDER_REFUNDED' });
    expect(selectForwardActions(t.actor.getSnapshot()).map((a) => a.label)).toEqual(['重新选择', '意见反馈']);
  });

  it('a device refusing to start ends in failed with the refund told', async () => {
    const t = await toConfirm();
    await t.play({ type: 'pay.confirm' });
    await t.play(done('pay', PAYS.paid));
    await t.play(done('queryOrder', QUERIES.refunded));
    expect(t.actor.getSnapshot().context.failure?.message).toBe('设备未能启动，款项已自动退回');
  });
});
