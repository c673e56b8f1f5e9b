/**
 * Staff and WeChat refunds (docs/money.md "WeChat refunds"): the member's page shows each order's refund to WeChat
 * with its state and WeChat's word; a closed refund can be retried by the admin or its own merchant (404 for another
 * merchant, 403 for partners and employees, whatever headers are forged), once (409 when not retryable), with an
 * audit row. Real app and database; the refund is decided by `refundOrder` and closed as WeChat's report would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Page } from '../../../src/domain/api';
import type { MemberOrder } from '../../../src/domain/members.schema';
import type { RefundRetryResult } from '../../../src/domain/refunds.schema';
import { audit_log, wechat_refunds } from '../../../server/db/schema';
import { refundOrder } from '../../../server/services/orders';
import { applyRefundReport } from '../../../server/services/orders/refund-settle';
import { createMember } from '../device-sessions/devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import { as, createOtherMerchant, FORGED } from '../people/fixtures';
import { createTestApp, type TestApp } from '../test-app';
import { paidConsume } from '../withdrawals/wallet-fixtures';

let t: TestApp;
let member: number;
let refundId: number;
let outRefundNo: string;

beforeAll(async () => {
  t = await createTestApp();
  await createOtherMerchant(t.deps.db, 'other');
  member = await createMember(t.deps.db);
  const orderId = await paidConsume(t.deps.db, {
    member_id: member,
    device_id: 1,
    method: 'wechat',
    running: true,
  });
  await t.deps.db.transaction((tx) =>
    refundOrder(tx, { order_id: orderId!, amount_fen: 100, reason: '提前结束' }),
  );
  const [row] = await t.deps.db.select().from(wechat_refunds).where(eq(wechat_refunds.order_id, orderId!));
  refundId = row!.id;
  outRefundNo = row!.out_refund_no;
  expect(
    await applyRefundReport(t.deps.db, { out_refund_no: outRefundNo, status: 'CLOSED' }, new Date()),
  ).toBe('closed');
});
afterAll(async () => t?.close());

const retry = (token: string) =>
  t.json<RefundRetryResult & { code?: string }>(
    `/backend/merchant/refunds/${refundId}/retry`,
    as(token, 'POST', {}, FORGED),
  );

describe('a WeChat refund on the member page', () => {
  it('shows the refund of the order with its state and what WeChat said', async () => {
    const token = await t.login('merchant');
    const res = await t.json<Page<MemberOrder>>(`/backend/merchant/members/${member}/orders`, as(token));
    expect(res.status).toBe(200);
    expect(res.body.items[0]).toMatchObject({
      method: 'wechat',
      status: 'refunded',
      refunded_fen: 0,
      wechat_refund: {
        id: refundId,
        status: 'closed',
        amount_fen: 100,
        last_error: expect.stringContaining('关闭'),
      },
    });
  });

  it('is retried by its own merchant only: others get 404, partners and employees 403; then 409', async () => {
    expect((await retry(await t.login('other'))).status).toBe(404);
    expect((await retry(await t.login('partner'))).status).toBe(403);
    expect((await retry(await t.login('employee'))).status).toBe(403);
    expect(
      (await t.json(`/backend/merchant/refunds/999999/retry`, as(await t.login('admin'), 'POST', {}))).status,
    ).toBe(404);
    const [still] = await t.deps.db.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId));
    expect(still).toMatchObject({ status: 'closed', out_refund_no: outRefundNo });

    const ok = await retry(await t.login('merchant'));
    expect(ok.status).toBe(200);
    expect(ok.body.refund).toMatchObject({
      id: refundId,
      status: 'pending',
      amount_fen: 100,
      last_error: null,
    });
    const [row] = await t.deps.db.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId));
    expect(row!.out_refund_no).not.toBe(outRefundNo);
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, 'refund.retry'), eq(audit_log.entity_id, String(refundId))));
    expect(audits).toHaveLength(1);

    const again = await retry(await t.login('admin'));
    expect(again).toMatchObject({ status: 409, body: { code: 'REFUND_NOT_RETRYABLE' } });
    await assertLedgerInvariants(t.deps.db);
  });
});
