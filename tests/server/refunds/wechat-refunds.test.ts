/**
 * WeChat refunds through the outbox (docs/money.md "WeChat refunds"): a WeChat-paid device that never starts is
 * refunded in full to WeChat, a session stopped early pro rata; the outbox row is committed before WeChat is
 * called; a crash between commit and send resends once with the same out_refund_no; duplicate notifications book
 * nothing twice; a closed refund stays visible and retryable. Real app, real sandbox (signed, AES-GCM), real DB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import {
  device_sessions,
  ledger_entries,
  ledger_transactions,
  sandbox_pay_notifications,
  wallets,
  wechat_refunds,
} from '../../../server/db/schema';
import { reservedFen } from '../../../server/services/withdrawals/requests';
import { createRefundWorker } from '../../../server/services/orders/refund-worker';
import { retryWechatRefund } from '../../../server/services/orders/refund-outbox';
import { REFUND_SPACING_MS } from '../../../server/services/orders/refund-spacing';
import type { ConsumptionHistoryItem, Page, StopResponse } from '../../../src/domain/api';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, type TestWorld, withCookie } from '../test-app';
import {
  type PaidDevice,
  makeDue,
  orderRow,
  payByWechat,
  principals,
  refundsOf,
  sandboxRefundsOf,
} from './refund-helpers';

let w: TestWorld;
let ds: PaidDevice[];

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  ds = await demoDevices(w);
});
afterAll(async () => {
  await w?.close();
});

const refundTxns = async (orderId: number) =>
  (
    await w.database.db
      .select({ n: count() })
      .from(ledger_transactions)
      .where(and(eq(ledger_transactions.order_id, orderId), eq(ledger_transactions.kind, 'refund')))
  )[0]!.n;

describe('a WeChat-paid device that never starts', () => {
  it('commits the outbox row before calling WeChat, then refunds the whole amount to WeChat', async () => {
    const { cookie } = await w.signIn('o-refund-full');
    const before = await principals(w);
    const paid = await payByWechat(w, cookie, ds[0]!, { refuse: true });
    // Decided, not booked: the row is pending, the order refunded, the ledger untouched by the refund.
    const [row] = await refundsOf(w, paid.order_id);
    expect(row).toMatchObject({ status: 'pending', amount_fen: paid.amount_fen, attempts: 0 });
    expect(await orderRow(w, paid.order_id)).toMatchObject({ status: 'refunded', refunded_fen: 0 });
    expect(await refundTxns(paid.order_id)).toBe(0);
    await assertLedgerInvariants(w.database.db);

    // The worker's WeChat call sees the row committed: on PostgreSQL from another connection, on PGlite (one
    // connection) the read would wait forever behind an open transaction.
    const seen: string[] = [];
    const worker = createRefundWorker({
      db: w.database.db,
      now: () => new Date(),
      pay: {
        queryRefund: (n) => w.wechat.pay.queryRefund(n),
        refund: async (input) => {
          const [committed] = await w.database.db
            .select()
            .from(wechat_refunds)
            .where(eq(wechat_refunds.out_refund_no, input.out_refund_no));
          seen.push(`${committed?.status}:${committed?.amount_fen}`);
          return w.wechat.pay.refund(input);
        },
      },
    });
    expect(await worker.runOnce()).toBe(1);
    expect(seen).toEqual([`pending:${paid.amount_fen}`]);
    // Sent once; WeChat's SUCCESS notification may already have arrived (on PostgreSQL the sandbox delivers it
    // from another connection while this reads), so the row is processing or already succeeded.
    const [sent] = await refundsOf(w, paid.order_id);
    expect(sent!.attempts).toBe(1);
    expect(['processing', 'succeeded']).toContain(sent!.status);
    await w.wechat.sandbox!.drainNotifications();

    const [done] = await refundsOf(w, paid.order_id);
    expect(done).toMatchObject({ status: 'succeeded', wechat_refund_id: expect.stringMatching(/^5030/) });
    expect(await orderRow(w, paid.order_id)).toMatchObject({
      status: 'refunded',
      refunded_fen: paid.amount_fen,
    });
    // Every wallet (merchant, partners, platform, external wechat) is back where it was, exact in fen; the
    // member's wallet, opened by the payment, holds nothing.
    const after = await principals(w);
    for (const [id, p] of after) expect([id, p]).toEqual([id, before.get(id) ?? 0]);
    expect(await sandboxRefundsOf(w, paid.order_no)).toMatchObject([
      { amount_refund: paid.amount_fen, status: 'SUCCESS' },
    ]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('a crash between commit and send resends once, with the same out_refund_no', async () => {
    const { cookie } = await w.signIn('o-refund-crash');
    const paid = await payByWechat(w, cookie, ds[1]!, { refuse: true, refundOutcome: 'silent' });
    // The process dies after the commit: no worker ran. A restarted instance finds the row due and sends it.
    const restarted = createRefundWorker({ db: w.database.db, pay: w.wechat.pay, now: () => new Date() });
    expect(await restarted.runOnce()).toBe(1);
    expect(await restarted.runOnce()).toBe(0);
    const [row] = await refundsOf(w, paid.order_id);
    expect(row!.status).toBe('processing');
    expect(await sandboxRefundsOf(w, paid.order_no)).toHaveLength(1);

    // A crash after WeChat accepted but before we recorded it: the lease ends, the same number goes again and
    // WeChat answers with the refund it already has.
    await w.database.db
      .update(wechat_refunds)
      .set({ status: 'pending' })
      .where(eq(wechat_refunds.id, row!.id));
    await makeDue(w, row!.id);
    expect(await restarted.runOnce()).toBe(1);
    const sent = await sandboxRefundsOf(w, paid.order_no);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.out_refund_no).toBe(row!.out_refund_no);

    // WeChat's answer to the resend is the refund as it stands (succeeded meanwhile; silent: no notification).
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    expect(await refundTxns(paid.order_id)).toBe(1);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('a duplicated refund notification credits nothing twice', async () => {
    const { cookie } = await w.signIn('o-refund-dup');
    const paid = await payByWechat(w, cookie, ds[2]!, { refuse: true, refundOutcome: 'duplicate' });
    await w.settle();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    expect(await refundTxns(paid.order_id)).toBe(1);
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(paid.amount_fen);
    const notices = await w.database.db
      .select()
      .from(sandbox_pay_notifications)
      .where(eq(sandbox_pay_notifications.out_trade_no, paid.order_no));
    const refundNotices = notices.filter((n) => n.body.includes('"REFUND.SUCCESS"'));
    expect(refundNotices).toHaveLength(2);
    expect(refundNotices.every((n) => n.delivered_at !== null)).toBe(true);
    // The same notification once more, freshly signed: 204, nothing booked.
    const again = w.wechat.sandbox!.signBody(refundNotices[0]!.body);
    const res = await w.request('/backend/wechat/pay/refund-notify', {
      method: 'POST',
      headers: again.headers,
      body: again.body,
    });
    expect(res.status).toBe(204);
    // The query and another pass after success change nothing either.
    const [row] = await refundsOf(w, paid.order_id);
    await makeDue(w, row!.id);
    await w.refunds.runOnce();
    expect(await refundTxns(paid.order_id)).toBe(1);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('a WeChat-paid session stopped early', () => {
  it('refunds the unused time pro rata to WeChat, exact in fen', async () => {
    const { cookie } = await w.signIn('o-refund-prorata');
    const paid = await payByWechat(w, cookie, ds[3]!);
    expect(await orderRow(w, paid.order_id)).toMatchObject({ status: 'started' });
    const stop = await w.json<StopResponse>(
      `/backend/user/using/${paid.order_no}/stop`,
      withCookie(cookie, { method: 'POST' }),
    );
    expect(stop.status).toBe(200);
    const [session] = await w.database.db
      .select()
      .from(device_sessions)
      .where(eq(device_sessions.order_id, paid.order_id));
    const total = session!.minutes * 60;
    const unused = Math.floor((session!.ends_at!.getTime() - session!.ended_at!.getTime()) / 1000);
    const expected = Math.floor((paid.amount_fen * Math.min(total, unused)) / total);
    expect(stop.body.refund_fen).toBe(expected);
    expect(stop.body.refund_to).toBe('wechat');
    expect(expected).toBeGreaterThan(0);
    await w.settle();
    const [row] = await refundsOf(w, paid.order_id);
    expect(row).toMatchObject({ status: 'succeeded', amount_fen: expected });
    expect(await orderRow(w, paid.order_id)).toMatchObject({ status: 'refunded', refunded_fen: expected });
    // The member's wallet got nothing: the money went back to WeChat.
    const profile = await w.json<{ wallets: { principal_fen: number }[] }>(
      '/backend/user/profile',
      withCookie(cookie),
    );
    expect(profile.body.wallets.every((x) => x.principal_fen === 0)).toBe(true);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('refunds that do not succeed', () => {
  it('a closed refund stays visible and retryable; the retry takes a new number and succeeds', async () => {
    const { cookie } = await w.signIn('o-refund-closed');
    const paid = await payByWechat(w, cookie, ds[4]!, { refuse: true, refundOutcome: 'closed' });
    await w.settle();
    const [row] = await refundsOf(w, paid.order_id);
    expect(row).toMatchObject({ status: 'closed', last_error: expect.stringContaining('关闭') });
    const history = async () =>
      (await w.json<Page<ConsumptionHistoryItem>>('/backend/user/consumption-history', withCookie(cookie)))
        .body.items[0];
    // The member sees the refund and its state (WeChat's error text stays with staff).
    expect(await history()).toMatchObject({
      order_no: paid.order_no,
      method: 'wechat',
      refunded_fen: 0,
      wechat_refund: { status: 'closed', amount_fen: paid.amount_fen },
    });
    expect((await history())!.wechat_refund).not.toHaveProperty('last_error');
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(0);
    expect(await refundTxns(paid.order_id)).toBe(0);
    await assertLedgerInvariants(w.database.db, { settled: true });
    // What the merchant's settlement holds from this order stays reserved: no withdrawal can take it meanwhile.
    const credited = await w.database.db
      .select({ wallet_id: ledger_entries.wallet_id, amount_fen: ledger_entries.amount_fen })
      .from(ledger_entries)
      .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
      .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
      .where(and(eq(ledger_transactions.order_id, paid.order_id), eq(wallets.kind, 'merchant')));
    expect(credited).toHaveLength(1);
    const reserved = await w.database.db.transaction((tx) => reservedFen(tx, credited[0]!.wallet_id));
    expect(reserved).toBeGreaterThanOrEqual(credited[0]!.amount_fen);

    await w.wechat.sandbox!.setRefundOutcome(paid.order_no, null);
    const retried = await w.database.db.transaction((tx) => retryWechatRefund(tx, row!.id, new Date()));
    expect(retried?.after).toMatchObject({ status: 'pending', attempts: 0 });
    expect(retried!.after.out_refund_no).not.toBe(row!.out_refund_no);
    // A new request of the order goes a minute after the previous one at the earliest (WeChat's rule).
    await w.settle();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('pending');
    w.advance(REFUND_SPACING_MS);
    await w.settle();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(paid.amount_fen);
    expect(await history()).toMatchObject({
      refunded_fen: paid.amount_fen,
      wechat_refund: { status: 'succeeded', amount_fen: paid.amount_fen },
    });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('WeChat errors are retried with backoff; a delayed refund settles by query', async () => {
    const { cookie } = await w.signIn('o-refund-error');
    const paid = await payByWechat(w, cookie, ds[5]!, { refuse: true, refundOutcome: 'error' });
    expect(await w.refunds.runOnce()).toBe(1);
    const [row] = await refundsOf(w, paid.order_id);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: expect.stringContaining('SYSTEM_ERROR'),
    });
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 3_000);
    expect(await w.refunds.runOnce()).toBe(0);

    await w.wechat.sandbox!.setRefundOutcome(paid.order_no, 'delay:150,silent');
    await makeDue(w, row!.id);
    expect(await w.refunds.runOnce()).toBe(1);
    expect((await refundsOf(w, paid.order_id))[0]).toMatchObject({ status: 'processing', attempts: 2 });
    await new Promise((r) => setTimeout(r, 200));
    await makeDue(w, row!.id);
    await w.refunds.runOnce();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
