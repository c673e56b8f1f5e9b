/**
 * The using page's API over the real app: a member signs in through the sandbox, pays from the wallet (money
 * POST /backend/user/pay), the simulator acknowledges, GET /backend/user/using shows the countdown data,
 * and POST .../stop ends it early with the unused time refunded pro rata. Ledger invariants after each.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResponse, StopResponse, UsingSession } from '../../../src/domain/api';
import { members, wallets } from '../../../server/db/schema';
import { fundMember } from '../device-sessions/devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestApp, postJson, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';

let t: TestWorld;
let alice: string;
let bob: string;
let aliceId: number;

async function memberId(openid: string) {
  const [m] = await t.deps.db.select({ id: members.id }).from(members).where(eq(members.openid, openid));
  return m!.id;
}
async function balance(id: number) {
  const [w] = await t.deps.db.select().from(wallets).where(eq(wallets.member_id, id));
  return w ? w.principal_fen + w.bonus_fen : 0;
}
async function using(cookie: string) {
  return t.json<{ items: UsingSession[]; server_time: string }>('/backend/user/using', withCookie(cookie));
}
async function pay(cookie: string, device_id: number, venue_id: number, price_id = 1) {
  return t.json<PayResponse>(
    '/backend/user/pay',
    withCookie(cookie, postJson({ device_id, venue_id, price_id, method: 'wallet' })),
  );
}
/** A heartbeat of every device at the app's (moved) clock, as the simulator's periodic beat would send. */
async function beat() {
  const serials = ['XH-CP-0001', 'XH-CP-0002', 'XH-MC-0001', 'XH-CP-0003', 'XH-CP-0004', 'XH-MC-0002'];
  await t.deps.devices!.handle({ type: 'heartbeat', serials, at: t.deps.now() });
}
async function waitFor(cookie: string, order_no: string, status: UsingSession['status']) {
  const end = Date.now() + 5000;
  for (;;) {
    const r = await using(cookie);
    const s = r.body.items.find((i) => i.order_no === order_no);
    if (s?.status === status) return s;
    if (Date.now() > end)
      throw new Error(`session ${order_no} never became ${status}: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

beforeAll(async () => {
  t = await createTestApp(WORLD);
  alice = await signInMember(t, 'using-alice');
  bob = await signInMember(t, 'using-bob');
  aliceId = await memberId('using-alice');
  await fundMember(t.deps.db, aliceId, 1, 5000);
});
afterAll(async () => {
  await t?.close();
});

describe('using and stop', () => {
  it('shows the running session and stops it early with a pro-rata refund to the wallet', async () => {
    expect((await using(alice)).body.items).toEqual([]);
    const before = await balance(aliceId);
    const paid = await pay(alice, 1, 1, 1);
    expect(paid.status).toBe(201);
    const orderNo = paid.body.order.order_no;
    const running = await waitFor(alice, orderNo, 'running');
    expect(running).toMatchObject({
      device_id: 1,
      device_name: '广场 1 号充电桩',
      minutes: 30,
      amount_fen: 200,
    });
    const startedAt = Date.parse(running.started_at!);
    expect(Date.parse(running.ends_at!) - startedAt).toBe(30 * 60_000);
    expect(await balance(aliceId)).toBe(before - 200);

    // Bob cannot see or stop Alice's session.
    expect((await using(bob)).body.items).toEqual([]);
    const foreign = await t.json<{ code: string }>(
      `/backend/user/using/${orderNo}/stop`,
      withCookie(bob, { method: 'POST' }),
    );
    expect(foreign.status).toBe(404);

    // 12 minutes in: 18 of 30 minutes unused (minus the few ms since the ack) -> floor(200 * unused s / 1800 s).
    t.advance(12 * 60_000);
    const stop = await t.json<StopResponse>(
      `/backend/user/using/${orderNo}/stop`,
      withCookie(alice, { method: 'POST' }),
    );
    expect(stop.status).toBe(200);
    expect(stop.body.status).toBe('stopped');
    expect(stop.body.order_no).toBe(orderNo);
    expect(stop.body.refund_fen).toBeGreaterThanOrEqual(119);
    expect(stop.body.refund_fen).toBeLessThanOrEqual(120);
    expect(await balance(aliceId)).toBe(before - 200 + stop.body.refund_fen);
    expect((await using(alice)).body.items).toEqual([]);

    const again = await t.json<{ code: string }>(
      `/backend/user/using/${orderNo}/stop`,
      withCookie(alice, { method: 'POST' }),
    );
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('SESSION_NOT_RUNNING');
    await assertLedgerInvariants(t.deps.db, { settled: true });
  });

  it('a session still starting cannot be stopped (409); it is refunded when the device never answers', async () => {
    await beat();
    await t.json('/backend/sandbox/devices/4/mode', postJson({ mode: 'silent' }));
    const before = await balance(aliceId);
    const paid = await pay(alice, 4, 2, 4);
    expect(paid.status).toBe(201);
    const orderNo = paid.body.order.order_no;
    await waitFor(alice, orderNo, 'starting');
    const early = await t.json<{ code: string }>(
      `/backend/user/using/${orderNo}/stop`,
      withCookie(alice, { method: 'POST' }),
    );
    expect(early.status).toBe(409);
    t.advance(11_000);
    const end = Date.now() + 5000;
    while ((await using(alice)).body.items.length > 0 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    expect((await using(alice)).body.items).toEqual([]);
    const q = await t.json<{ status: string }>(`/backend/api/query?order_no=${orderNo}`);
    expect(q.body.status).toBe('refunded');
    expect(await balance(aliceId)).toBe(before);
    await t.json('/backend/sandbox/devices/4/mode', postJson({ mode: 'normal' }));
    await assertLedgerInvariants(t.deps.db, { settled: true });
  });

  it('bad order numbers are 400, unknown ones 404, and no cookie is 401', async () => {
    const bad = await t.json<{ code: string }>(
      '/backend/user/using/%3Cscript%3E/stop',
      withCookie(alice, { method: 'POST' }),
    );
    expect(bad.status).toBe(400);
    const long = await t.json(
      `/backend/user/using/${'9'.repeat(80)}/stop`,
      withCookie(alice, { method: 'POST' }),
    );
    expect(long.status).toBe(400);
    const unknown = await t.json(
      '/backend/user/using/C20260101000000000/stop',
      withCookie(alice, { method: 'POST' }),
    );
    expect(unknown.status).toBe(404);
    const anon = await t.json<{ code: string }>('/backend/user/using/C1/stop', { method: 'POST' });
    expect(anon.status).toBe(401);
    expect(anon.body.code).toBe('WECHAT_AUTH_REQUIRED');
  });
});
