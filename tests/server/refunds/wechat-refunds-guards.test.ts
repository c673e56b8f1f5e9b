/**
 * Guards of the refund outbox (docs/money.md "WeChat refunds"), on the real app, sandbox and database, with the
 * worker on an injected clock:
 * - WeChat's rule that refund requests of one order be a minute apart: a second refund of the order (a partial one
 *   after another, or a closed refund's retry under a new number) waits until 61 s after the previous request;
 * - an answer that does not match the refund (amount, order total, out_trade_no, out_refund_no) is never settled:
 *   logged, asked again after 5 then 30 minutes, and the third leaves the refund `mismatch` for staff, no longer
 *   queried; a mismatched notification answers 400 and books nothing; staff may ask once more.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { ledger_transactions } from '../../../server/db/schema';
import { refundOrder } from '../../../server/services/orders';
import { createRefundWorker } from '../../../server/services/orders/refund-worker';
import { REFUND_SPACING_MS } from '../../../server/services/orders/refund-spacing';
import { retryWechatRefund } from '../../../server/services/orders/refund-outbox';
import { aesGcmEncrypt, nonceStr } from '../../../server/wechat/crypto';
import type { Refund, RefundInput } from '../../../server/wechat/types';
import type { RefundRetryResult } from '../../../src/domain/refunds.schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { type PaidDevice, orderRow, payByWechat, refundsOf, sandboxRefundsOf } from './refund-helpers';
import { createTestApp, ONLINE_WORLD, type TestApp } from '../test-app';

let w: TestApp<typeof ONLINE_WORLD>;
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

/** A worker on the clock `clock.t`, recording when (on that clock) each refund request went to WeChat. */
function clockedWorker(tamper?: (r: Refund) => Refund) {
  const clock = { t: Date.now() };
  const sent: { at: number; input: RefundInput }[] = [];
  const worker = createRefundWorker({
    db: w.database.db,
    now: () => new Date(clock.t),
    pay: {
      refund: async (input) => {
        sent.push({ at: clock.t, input });
        const answer = await w.wechat.pay.refund(input);
        return tamper ? tamper(answer) : answer;
      },
      queryRefund: async (n) => {
        const answer = await w.wechat.pay.queryRefund(n);
        return answer && tamper ? tamper(answer) : answer;
      },
    },
  });
  return { clock, sent, worker };
}

describe('refund requests of one order are at least a minute apart', () => {
  it('a second partial refund of the order waits 61 s after the first request', async () => {
    const { cookie } = await w.signIn('o-spacing-partial');
    const paid = await payByWechat(w, cookie, ds[0]!, { refundOutcome: 'silent' });
    await w.database.db.transaction(async (tx) => {
      await refundOrder(tx, { order_id: paid.order_id, amount_fen: 100, reason: '部分退款一' });
      await refundOrder(tx, { order_id: paid.order_id, amount_fen: 50, reason: '部分退款二' });
    });
    const { clock, sent, worker } = clockedWorker();
    const mine = () => sent.filter((s) => s.input.out_trade_no === paid.order_no);
    const t0 = clock.t;
    await worker.runOnce();
    expect(mine().map((s) => s.input.refund_fen)).toEqual([100]);
    const [, second] = await refundsOf(w, paid.order_id);
    expect(second).toMatchObject({ status: 'pending', attempts: 0 });
    expect(second!.next_attempt_at.getTime()).toBe(t0 + REFUND_SPACING_MS);

    for (const at of [30_000, 45_000, REFUND_SPACING_MS - 1]) {
      clock.t = t0 + at;
      await worker.runOnce();
      expect(mine()).toHaveLength(1);
    }
    clock.t = t0 + REFUND_SPACING_MS;
    await worker.runOnce();
    expect(mine().map((s) => [s.input.refund_fen, s.at - t0])).toEqual([
      [100, 0],
      [50, REFUND_SPACING_MS],
    ]);
    // WeChat answers PROCESSING; the queries settle both, once each.
    clock.t += 3_600_000;
    await worker.runOnce();
    expect(await sandboxRefundsOf(w, paid.order_no)).toHaveLength(2);
    expect((await refundsOf(w, paid.order_id)).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(150);
    await assertLedgerInvariants(w.database.db);
  });

  it('a closed refund retried at once under a new number waits a minute after the first request', async () => {
    const { cookie } = await w.signIn('o-spacing-retry');
    const paid = await payByWechat(w, cookie, ds[1]!, { refuse: true, refundOutcome: 'closed' });
    const { clock, sent, worker } = clockedWorker();
    const mine = () => sent.filter((s) => s.input.out_trade_no === paid.order_no);
    const t0 = clock.t;
    await worker.runOnce();
    await w.wechat.sandbox!.drainNotifications();
    const [closed] = await refundsOf(w, paid.order_id);
    expect(closed!.status).toBe('closed');

    await w.wechat.sandbox!.setRefundOutcome(paid.order_no, 'silent');
    clock.t = t0 + 10_000;
    const retried = await w.database.db.transaction((tx) =>
      retryWechatRefund(tx, closed!.id, new Date(clock.t)),
    );
    expect(retried!.after.out_refund_no).not.toBe(closed!.out_refund_no);
    await worker.runOnce();
    expect(mine()).toHaveLength(1);
    expect((await refundsOf(w, paid.order_id))[0]!.next_attempt_at.getTime()).toBe(t0 + REFUND_SPACING_MS);
    clock.t = t0 + REFUND_SPACING_MS;
    await worker.runOnce();
    expect(mine().map((s) => s.at - t0)).toEqual([0, REFUND_SPACING_MS]);
    expect(mine()[1]!.input.out_refund_no).toBe(retried!.after.out_refund_no);
    clock.t += 3_600_000;
    await worker.runOnce();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    await assertLedgerInvariants(w.database.db);
  });

  it('a resend of the same number after a failed send is not held back a minute', async () => {
    const { cookie } = await w.signIn('o-spacing-resend');
    const paid = await payByWechat(w, cookie, ds[2]!, { refuse: true, refundOutcome: 'error' });
    const { clock, sent, worker } = clockedWorker();
    const mine = () => sent.filter((s) => s.input.out_trade_no === paid.order_no);
    const t0 = clock.t;
    await worker.runOnce();
    expect((await refundsOf(w, paid.order_id))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await w.wechat.sandbox!.setRefundOutcome(paid.order_no, 'silent');
    clock.t = t0 + 5_000;
    await worker.runOnce();
    expect(mine().map((s) => s.at - t0)).toEqual([0, 5_000]);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('processing');
  });
});

describe('an answer that does not match the refund', () => {
  it('is never settled: asked again after 5 and 30 minutes, then left to staff as mismatch', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { cookie } = await w.signIn('o-mismatch-amount');
    const paid = await payByWechat(w, cookie, ds[3]!, { refuse: true, refundOutcome: 'silent' });
    const wrongAmount = (r: Refund): Refund => ({
      ...r,
      amount: { ...r.amount, refund: r.amount.refund + 1 },
    });
    const { clock, worker } = clockedWorker(wrongAmount);
    const t0 = clock.t;
    await worker.runOnce();
    const row = async () => (await refundsOf(w, paid.order_id))[0]!;
    expect(await row()).toMatchObject({ status: 'processing', mismatches: 1 });
    expect((await row()).last_error).toContain('退款金额');
    expect((await row()).next_attempt_at.getTime()).toBe(t0 + 300_000);
    expect(errors.mock.calls.some((c) => String(c[0]).includes('does not match'))).toBe(true);

    clock.t = t0 + 299_000;
    await worker.runOnce();
    expect(await row()).toMatchObject({ status: 'processing', mismatches: 1 });
    clock.t = t0 + 300_000;
    await worker.runOnce();
    expect(await row()).toMatchObject({ status: 'processing', mismatches: 2 });
    expect((await row()).next_attempt_at.getTime()).toBe(clock.t + 1_800_000);
    clock.t += 1_800_000;
    await worker.runOnce();
    expect(await row()).toMatchObject({ status: 'mismatch', mismatches: 3 });
    // Left alone: no more queries, nothing booked, however long we wait.
    const left = (await row()).updated_at;
    clock.t += 86_400_000;
    await worker.runOnce();
    expect((await row()).updated_at).toEqual(left);
    expect(await refundTxns(paid.order_id)).toBe(0);
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(0);
    await assertLedgerInvariants(w.database.db);

    // The merchant sees it and asks once more (retry): WeChat now answers what we sent, and it settles once.
    const token = await w.login('merchant');
    const res = await w.json<RefundRetryResult>(`/backend/merchant/refunds/${(await row()).id}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.refund.status).toBe('processing');
    // The route kicked the app's worker (no tampering there): it asks WeChat under the same number, no resend.
    const before = (await sandboxRefundsOf(w, paid.order_no)).length;
    for (let i = 0; i < 100 && (await row()).status === 'processing'; i++) {
      await w.refunds.kick();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await sandboxRefundsOf(w, paid.order_no)).toHaveLength(before);
    expect(await row()).toMatchObject({ status: 'succeeded', last_error: null });
    expect(await refundTxns(paid.order_id)).toBe(1);
    await assertLedgerInvariants(w.database.db);
    errors.mockRestore();
  });

  it('an answer about another refund number never touches that other refund', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { cookie } = await w.signIn('o-mismatch-number');
    const a = await payByWechat(w, cookie, ds[4]!, { refuse: true, refundOutcome: 'silent' });
    const b = await payByWechat(w, cookie, ds[5]!, { refuse: true, refundOutcome: 'silent' });
    const [rowB] = await refundsOf(w, b.order_id);
    // Every answer claims to be about b's refund (same order total and amount: only the numbers differ).
    const other = (r: Refund): Refund => ({
      ...r,
      out_refund_no: rowB!.out_refund_no,
      out_trade_no: b.order_no,
    });
    const { worker } = clockedWorker(other);
    await worker.runOnce();
    const [rowA] = await refundsOf(w, a.order_id);
    const [rowBAfter] = await refundsOf(w, b.order_id);
    expect(rowA).toMatchObject({ mismatches: 1, status: 'processing' });
    expect(rowA!.last_error).toContain('退款单号');
    // b's refund was sent by the same pass with its own number: the tampered answer matches it, nothing more.
    expect(rowBAfter!.mismatches).toBe(0);
    expect(await refundTxns(a.order_id)).toBe(0);
    await assertLedgerInvariants(w.database.db);
    errors.mockRestore();
  });

  it('a mismatched notification answers 400, books nothing and is counted on the refund', async () => {
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { cookie } = await w.signIn('o-mismatch-notify');
    // A refund to tamper with: decided, sent, processing (delayed at the sandbox, no notification of its own).
    const paid2 = await payByWechat(w, cookie, ds[2]!, {
      refuse: true,
      refundOutcome: 'silent,delay:600000',
    });
    const { worker } = clockedWorker();
    await worker.runOnce();
    const [row2] = await refundsOf(w, paid2.order_id);
    expect(row2!.status).toBe('processing');
    const keys = w.sandbox.keys;
    const notice = (amount: number, total: number) => {
      const nonce = nonceStr(12);
      const plain = JSON.stringify({
        mchid: keys.mchid,
        out_trade_no: paid2.order_no,
        transaction_id: 'tx',
        out_refund_no: row2!.out_refund_no,
        refund_id: row2!.wechat_refund_id,
        refund_status: 'SUCCESS',
        user_received_account: '支付用户零钱',
        amount: { total, refund: amount, payer_total: total, payer_refund: amount },
      });
      const env = {
        id: crypto.randomUUID(),
        create_time: new Date().toISOString(),
        resource_type: 'encrypt-resource',
        event_type: 'REFUND.SUCCESS',
        summary: '退款成功',
        resource: {
          original_type: 'refund',
          algorithm: 'AEAD_AES_256_GCM',
          ciphertext: aesGcmEncrypt(plain, keys.apiV3Key, nonce, 'refund'),
          associated_data: 'refund',
          nonce,
        },
      };
      const signed = w.wechat.sandbox!.signBody(JSON.stringify(env));
      return w.request('/backend/wechat/pay/refund-notify', { method: 'POST', ...signed });
    };
    expect((await notice(row2!.amount_fen - 1, paid2.amount_fen)).status).toBe(400);
    expect((await notice(row2!.amount_fen, paid2.amount_fen + 100)).status).toBe(400);
    const [after] = await refundsOf(w, paid2.order_id);
    expect(after).toMatchObject({ status: 'processing', mismatches: 2 });
    expect(await refundTxns(paid2.order_id)).toBe(0);
    // The genuine one still settles it.
    expect((await notice(row2!.amount_fen, paid2.amount_fen)).status).toBe(204);
    expect((await refundsOf(w, paid2.order_id))[0]!.status).toBe('succeeded');
    expect(await refundTxns(paid2.order_id)).toBe(1);
    await assertLedgerInvariants(w.database.db);
    warn.mockRestore();
  });
});
