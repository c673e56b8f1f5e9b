/** WeChat Pay bookkeeping: the notifications we accepted. Money is integer fen (docs/decisions.md D5). */
import { pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';

/** Every notification we accepted, deduplicated by out_trade_no (and WeChat's notification id for the log). */
export const pay_notifications = pgTable('pay_notifications', {
  id: id(),
  notification_id: text().notNull(),
  out_trade_no: text().notNull().unique(),
  transaction_id: text(),
  received_at: createdAt(),
});
