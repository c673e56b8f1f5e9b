/**
 * For ledger-level suites that decide refunds by calling `refundOrder` directly (no WeChat in the world): what WeChat
 * reporting SUCCESS for every refund on its way does, through the production settling code (refund-settle.ts).
 * The suites that exercise the outbox, the worker and the sandbox are in tests/server/refunds/.
 */
import { inArray } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';
import { wechat_refunds } from '../../../server/db/schema';
import { applyRefundReport } from '../../../server/services/orders/refund-settle';

/**
 * Settles every pending or processing WeChat refund as succeeded; returns how many it booked. A refund the ledger
 * refuses (its split was withdrawn meanwhile) stays on its way and is not counted.
 */
export async function settleWechatRefunds(db: Db): Promise<number> {
  const rows = await db
    .select()
    .from(wechat_refunds)
    .where(inArray(wechat_refunds.status, ['pending', 'processing']));
  let n = 0;
  for (const r of rows) {
    const report = { out_refund_no: r.out_refund_no, status: 'SUCCESS' as const };
    const result = await applyRefundReport(db, report, new Date()).catch(() => 'refused');
    if (result === 'succeeded') n++;
  }
  return n;
}
