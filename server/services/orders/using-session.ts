/** The one mapper from a device session and its order to the `/user/using` shape (also answered by pay and stop). */
import { eq } from 'drizzle-orm';
import type { UsingSession } from '../../../src/domain/api';
import type { Db, Tx } from '../../db/client';
import { device_sessions, devices, orders } from '../../db/schema';
import type { Order } from './order';

/** The columns every using-session query selects (join device_sessions, orders and devices). */
export const usingSessionColumns = {
  session_id: device_sessions.id,
  order_no: orders.order_no,
  device_id: device_sessions.device_id,
  device_name: devices.name,
  minutes: device_sessions.minutes,
  amount_fen: orders.amount_fen,
  started_at: device_sessions.started_at,
  ends_at: device_sessions.ends_at,
  status: device_sessions.status,
  refund_fen: device_sessions.refund_fen,
};

export type UsingSessionRow = {
  order_no: string;
  device_id: number;
  device_name: string;
  minutes: number;
  amount_fen: number;
  started_at: Date | null;
  ends_at: Date | null;
  status: UsingSession['status'];
};

export function toUsingSession(r: UsingSessionRow): UsingSession {
  return {
    order_no: r.order_no,
    device_id: r.device_id,
    device_name: r.device_name,
    minutes: r.minutes,
    amount_fen: r.amount_fen,
    started_at: r.started_at?.toISOString() ?? null,
    ends_at: r.ends_at?.toISOString() ?? null,
    status: r.status,
  };
}

/** The session of a consume order in the `/user/using` shape. */
export async function usingSessionOf(db: Db | Tx, order: Order): Promise<UsingSession | undefined> {
  const [s] = await db
    .select(usingSessionColumns)
    .from(device_sessions)
    .innerJoin(orders, eq(orders.id, device_sessions.order_id))
    .innerJoin(devices, eq(devices.id, device_sessions.device_id))
    .where(eq(device_sessions.order_id, order.id));
  return s && toUsingSession(s);
}
