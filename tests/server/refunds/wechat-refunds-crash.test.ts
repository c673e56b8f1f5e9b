/**
 * A crash between the commit that decides a WeChat refund and WeChat's answer resends it once (docs/money.md
 * "WeChat refunds"): the row is committed, a worker claims it and dies (before its request leaves, or after WeChat
 * received it but before the answer came back); a new worker on a clock past the claim's lease sends the same
 * out_refund_no once, and WeChat (the sandbox, idempotent by out_refund_no) holds exactly one refund. The dead
 * worker is simulated by a WeChat call that never returns: its pass never finishes, as if the process were gone.
 * PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { ledger_transactions } from '../../../server/db/schema';
import { createRefundWorker } from '../../../server/services/orders/refund-worker';
import type { RefundInput } from '../../../server/wechat/types';
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

const never = new Promise<never>(() => undefined);

/** A worker whose process dies inside its WeChat call: `reach` says whether the request got to WeChat first. */
function dyingWorker(clock: { t: number }, reach: boolean) {
  return createRefundWorker({
    db: w.database.db,
    now: () => new Date(clock.t),
    pay: {
      refund: async (input: RefundInput) => {
        if (reach) await w.wechat.pay.refund(input);
        return never;
      },
      queryRefund: () => never,
    },
  });
}

async function crashAndRestart(openid: string, device: PaidDevice, reach: boolean) {
  const { cookie } = await w.signIn(openid);
  const paid = await payByWechat(w, cookie, device, { refuse: true, refundOutcome: 'silent' });
  const [decided] = await refundsOf(w, paid.order_id);
  expect(decided).toMatchObject({ status: 'pending', attempts: 0 });

  const clock = { t: Date.now() };
  void dyingWorker(clock, reach).runOnce();
  // The dead worker's claim committed: attempts counted, the row leased for a minute.
  await expect
    .poll(async () => (await refundsOf(w, paid.order_id))[0]!.sent_at, { timeout: 5000 })
    .not.toBeNull();
  if (reach) await expect.poll(async () => (await sandboxRefundsOf(w, paid.order_no)).length).toBe(1);
  else expect(await sandboxRefundsOf(w, paid.order_no)).toHaveLength(0);

  const sent: string[] = [];
  const restarted = createRefundWorker({
    db: w.database.db,
    now: () => new Date(clock.t),
    pay: {
      refund: (input) => {
        sent.push(input.out_refund_no);
        return w.wechat.pay.refund(input);
      },
      queryRefund: (n) => w.wechat.pay.queryRefund(n),
    },
  });
  // Within the lease the new worker leaves the row alone.
  clock.t += 30_000;
  await restarted.runOnce();
  expect(sent).toEqual([]);
  // After it, the same number goes once; WeChat holds one refund.
  clock.t += 31_000;
  await restarted.runOnce();
  expect(sent).toEqual([decided!.out_refund_no]);
  const atWechat = await sandboxRefundsOf(w, paid.order_no);
  expect(atWechat).toHaveLength(1);
  expect(atWechat[0]!.out_refund_no).toBe(decided!.out_refund_no);
  // Its query settles it, booked once.
  clock.t += 3_600_000;
  await restarted.runOnce();
  expect(sent).toHaveLength(1);
  expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
  const [n] = await w.database.db
    .select({ n: count() })
    .from(ledger_transactions)
    .where(and(eq(ledger_transactions.order_id, paid.order_id), eq(ledger_transactions.kind, 'refund')));
  expect(n!.n).toBe(1);
  expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(paid.amount_fen);
  await assertLedgerInvariants(w.database.db, { settled: true });
}

describe('a worker killed while sending a committed refund', () => {
  it('before its request left: a new worker sends it once after the lease', async () => {
    await crashAndRestart('o-crash-before', ds[0]!, false);
  });

  it('after WeChat received it, before the answer: the resend is the same number, one refund at WeChat', async () => {
    await crashAndRestart('o-crash-after', ds[1]!, true);
  });
});
