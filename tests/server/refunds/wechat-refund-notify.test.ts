/**
 * `POST /backend/wechat/pay/refund-notify` with the sandbox's real REFUND.SUCCESS notification (RSA-signed,
 * AES-256-GCM): a bad signature or a tampered body answers 401 and books nothing; the genuine one settles the refund
 * once; the same again answers 204 and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, like } from 'drizzle-orm';
import { ledger_transactions, sandbox_pay_notifications } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, type TestWorld } from '../test-app';
import { orderRow, payByWechat, refundsOf } from './refund-helpers';

let w: TestWorld;
beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
});
afterAll(async () => {
  await w?.close();
});

const post = (n: { body: string; headers: Record<string, string> }) =>
  w.request('/backend/wechat/pay/refund-notify', { method: 'POST', headers: n.headers, body: n.body });

describe('the refund notification route', () => {
  it('verifies and decrypts before it books, and books once', async () => {
    const [device] = await demoDevices(w);
    const { cookie } = await w.signIn('o-refund-notify');
    // Delivered only in a minute: the test posts the queued notification itself.
    const paid = await payByWechat(w, cookie, device!, { refuse: true, refundOutcome: 'delay:60000' });
    expect(await w.refunds.runOnce()).toBe(1);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('processing');
    const [queued] = await w.database.db
      .select()
      .from(sandbox_pay_notifications)
      .where(
        and(
          eq(sandbox_pay_notifications.out_trade_no, paid.order_no),
          like(sandbox_pay_notifications.body, '%REFUND.SUCCESS%'),
        ),
      );
    expect(queued).toBeDefined();
    const sandbox = w.wechat.sandbox!;

    expect((await post(sandbox.signBody(queued!.body, { signature: 'bad' }))).status).toBe(401);
    expect((await post(sandbox.signBody(queued!.body, { signature: 'probe' }))).status).toBe(401);
    const env = JSON.parse(queued!.body) as { resource: { ciphertext: string } };
    const c = env.resource.ciphertext;
    env.resource.ciphertext = `${c.slice(0, 10)}${c[10] === 'A' ? 'B' : 'A'}${c.slice(11)}`;
    expect((await post(sandbox.signBody(JSON.stringify(env)))).status).toBe(401);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('processing');

    expect((await post(sandbox.signBody(queued!.body))).status).toBe(204);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    expect((await post(sandbox.signBody(queued!.body))).status).toBe(204);
    const [n] = await w.database.db
      .select({ n: count() })
      .from(ledger_transactions)
      .where(and(eq(ledger_transactions.order_id, paid.order_id), eq(ledger_transactions.kind, 'refund')));
    expect(n!.n).toBe(1);
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(paid.amount_fen);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
