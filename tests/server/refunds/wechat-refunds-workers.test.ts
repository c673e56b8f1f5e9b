/**
 * Several refund workers on one outbox (docs/money.md "WeChat refunds"): passes that run at the same time claim
 * disjoint rows (`FOR UPDATE SKIP LOCKED` and a lease), so each refund is sent to WeChat exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRefundWorker } from '../../../server/services/orders/refund-worker';
import type { WechatPay } from '../../../server/wechat/types';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { payByWechat, refundsOf } from './refund-helpers';
import { createTestApp, ONLINE_WORLD, type TestApp } from '../test-app';

let w: TestApp<typeof ONLINE_WORLD>;
beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
});
afterAll(async () => {
  await w?.close();
});

describe('two refund workers', () => {
  it('send every refund once between them', async () => {
    const ds = await demoDevices(w);
    const paid = [];
    for (const [i, d] of ds.slice(0, 4).entries()) {
      const { cookie } = await w.signIn(`o-refund-workers-${i}`);
      paid.push(await payByWechat(w, cookie, d, { refuse: true, refundOutcome: 'silent' }));
    }
    const sent: string[] = [];
    const pay: Pick<WechatPay, 'refund' | 'queryRefund'> = {
      queryRefund: (n) => w.wechat.pay.queryRefund(n),
      refund: async (input) => {
        sent.push(input.out_refund_no);
        // Slow enough for the passes to overlap.
        await new Promise((r) => setTimeout(r, 30));
        return w.wechat.pay.refund(input);
      },
    };
    const a = createRefundWorker({ db: w.database.db, pay, now: () => new Date(), batch: 2 });
    const b = createRefundWorker({ db: w.database.db, pay, now: () => new Date(), batch: 2 });
    const handled = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    expect(handled.reduce((s, n) => s + n, 0)).toBe(4);
    expect(sent).toHaveLength(4);
    expect(new Set(sent).size).toBe(4);
    for (const p of paid) {
      const [row] = await refundsOf(w, p.order_id);
      expect(row).toMatchObject({ status: 'processing', attempts: 1 });
    }
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
