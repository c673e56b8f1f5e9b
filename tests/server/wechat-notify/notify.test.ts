/**
 * POST /backend/wechat/pay/notify with real WeChat Pay v3 notifications from the sandbox (RSA-signed, AES-256-GCM
 * encrypted): a duplicate credits once; a bad signature, a tampered body, a stale timestamp, a probe, a wrong
 * amount, another merchant's ids or an unknown order are refused and change nothing; a late notification is
 * overtaken by the order query and then harmless. The shared ledger invariants are checked after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, count, eq, isNotNull } from 'drizzle-orm';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';
import {
  devices,
  ledger_entries,
  orders,
  pay_notifications,
  sandbox_pay_notifications,
  wallets,
} from '../../../server/db/schema';
import type { Transaction, WechatSandboxHandle } from '../../../server/wechat/types';
import type { RechargeResponse, UserProfile } from '../../../src/domain/api';

let w: TestWorld;
let sandbox: WechatSandboxHandle;
let merchantId: number;

async function snapshot() {
  const db = w.database.db;
  const [o] = await db.select({ n: count() }).from(orders).where(eq(orders.status, 'pending'));
  const [e] = await db.select({ n: count() }).from(ledger_entries);
  const [n] = await db.select({ n: count() }).from(pay_notifications);
  const ws = await db.select().from(wallets).orderBy(wallets.id);
  return {
    pending: o?.n,
    entries: e?.n,
    notes: n?.n,
    wallets: ws.map((x) => [x.id, x.principal_fen, x.bonus_fen]),
  };
}

/** A pending recharge of package 1 (50.00 + 5.00) and its prepay id. */
async function pendingRecharge(openid: string) {
  const s = await w.signIn(openid);
  const res = await w.json<RechargeResponse>(
    '/backend/user/recharge',
    withCookie(s.cookie, postJson({ merchant_id: merchantId, package_id: 1 })),
  );
  expect(res.status).toBe(201);
  const prepayId = res.body.jsapi.package.replace(/^prepay_id=/, '');
  return { ...s, order_no: res.body.order.order_no, prepayId };
}

const deliver = (n: { body: string; headers: Record<string, string> }) =>
  w.request('/backend/wechat/pay/notify', { method: 'POST', headers: n.headers, body: n.body });

async function balance(cookie: string) {
  const p = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
  return p.body.wallets.map((x) => [x.principal_fen, x.bonus_fen]);
}

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  sandbox = w.wechat.sandbox!;
  const [d] = await w.database.db.select().from(devices).orderBy(asc(devices.id)).limit(1);
  merchantId = d!.merchant_id;
});
afterAll(async () => {
  await w?.close();
});

describe('payment notifications', () => {
  it('credits once when WeChat delivers the notification twice (and once more by hand)', async () => {
    const r = await pendingRecharge('o-notify-dup');
    const t = await sandbox.confirmPayment(r.prepayId, { duplicate: true });
    await w.settle();
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    const again = await deliver(sandbox.signedNotification(t));
    expect(again.status).toBe(204);
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    const notes = await w.database.db
      .select()
      .from(pay_notifications)
      .where(eq(pay_notifications.out_trade_no, r.order_no));
    expect(notes).toHaveLength(1);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('refuses forged, tampered and mismatched notifications and changes nothing; the genuine one then credits', async () => {
    const r = await pendingRecharge('o-notify-forged');
    // Paid at WeChat, but no notification sent yet.
    const t = await sandbox.confirmPayment(r.prepayId, { silent: true });
    const before = await snapshot();

    const bad = await deliver(sandbox.signedNotification(t, { signature: 'bad' }));
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ code: 'FAIL' });

    const genuine = sandbox.signedNotification(t);
    const envelope = JSON.parse(genuine.body) as { resource: { ciphertext: string } };
    const c = envelope.resource.ciphertext;
    envelope.resource.ciphertext = (c[0] === 'A' ? 'B' : 'A') + c.slice(1);
    const tampered = await deliver({ headers: genuine.headers, body: JSON.stringify(envelope) });
    expect(tampered.status).toBe(401);
    const reordered = await deliver({ headers: genuine.headers, body: `${genuine.body} ` });
    expect(reordered.status).toBe(401);

    expect((await deliver(sandbox.signedNotification(t, { timestampOffsetS: -600 }))).status).toBe(401);
    expect((await deliver(sandbox.signedNotification(t, { signature: 'probe' }))).status).toBe(401);

    const wrongAmount: Transaction = { ...t, amount: { ...t.amount!, total: t.amount!.total + 1 } };
    const wa = await deliver(sandbox.signedNotification(wrongAmount));
    expect(wa.status).toBe(400);
    expect(await wa.json()).toMatchObject({ code: 'FAIL', message: '通知与订单不符' });
    // Another merchant's ids: the Pay client or our order check refuses them (401 or 400, never booked).
    for (const forged of [
      { ...t, mchid: '1900000000' },
      { ...t, appid: 'wx0000000000000000' },
    ]) {
      expect([400, 401]).toContain((await deliver(sandbox.signedNotification(forged))).status);
    }
    expect(
      (await deliver(sandbox.signedNotification({ ...t, payer: { openid: 'o-someone-else' } }))).status,
    ).toBe(400);
    expect(
      (await deliver(sandbox.signedNotification({ ...t, out_trade_no: 'R20260101000000123456789' }))).status,
    ).toBe(400);
    const junk = await w.request('/backend/wechat/pay/notify', postJson('not json'));
    expect(junk.status).toBeGreaterThanOrEqual(400);
    expect(junk.status).toBeLessThan(500);

    // The sandbox's own fake-amount delivery (correctly signed) is refused the same way.
    await sandbox.confirmPayment(r.prepayId, { wrongAmountFen: 1 });
    const attempt = async () => {
      const [row] = await w.database.db
        .select()
        .from(sandbox_pay_notifications)
        .where(
          and(
            eq(sandbox_pay_notifications.out_trade_no, r.order_no),
            isNotNull(sandbox_pay_notifications.last_status),
          ),
        );
      return row;
    };
    for (let i = 0; i < 200 && !(await attempt()); i++) await new Promise((ok) => setTimeout(ok, 20));
    expect((await attempt())?.last_status).toBe(400);

    expect(await snapshot()).toEqual(before);
    expect((await w.json(`/backend/api/query?order_no=${r.order_no}`)).body).toMatchObject({
      status: 'paid',
    });
    // The query found the payment at WeChat (the notification never came through); it credited exactly once.
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    const ok = await deliver(sandbox.signedNotification(t));
    expect(ok.status).toBe(204);
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('books a genuine notification with 204 and nothing else', async () => {
    const r = await pendingRecharge('o-notify-ok');
    const t = await sandbox.confirmPayment(r.prepayId, { silent: true });
    const res = await deliver(sandbox.signedNotification(t));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('lets the order query overtake a late notification, which is then harmless', async () => {
    const r = await pendingRecharge('o-notify-late');
    await sandbox.confirmPayment(r.prepayId, { delayMs: 60_000 });
    expect(await balance(r.cookie)).toEqual([]);
    const q = await w.json(`/backend/api/query?order_no=${r.order_no}`);
    expect(q.body).toMatchObject({ status: 'paid', kind: 'recharge', amount_fen: 5000 });
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    const t = await sandbox.confirmPayment(r.prepayId, { silent: true });
    expect((await deliver(sandbox.signedNotification(t))).status).toBe(204);
    expect(await balance(r.cookie)).toEqual([[5000, 500]]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('closes a pending order that WeChat closed, moving no money', async () => {
    const r = await pendingRecharge('o-notify-closed');
    await w.wechat.pay.close(r.order_no);
    const q = await w.json(`/backend/api/query?order_no=${r.order_no}`);
    expect(q.body).toMatchObject({ status: 'closed' });
    await expect(sandbox.confirmPayment(r.prepayId)).rejects.toThrow();
    expect(await balance(r.cookie)).toEqual([]);
    await assertLedgerInvariants(w.database.db);
  });

  it('keeps a pending order pending when WeChat has not been paid', async () => {
    const r = await pendingRecharge('o-notify-unpaid');
    const q = await w.json(`/backend/api/query?order_no=${r.order_no}`);
    expect(q.body).toMatchObject({ status: 'pending' });
    expect(await balance(r.cookie)).toEqual([]);
    await assertLedgerInvariants(w.database.db);
  });
});
