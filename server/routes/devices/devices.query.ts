/**
 * Reading devices for `/backend/merchant/devices`: one select (device, merchant, venue and model names, the session that runs
 * now with its order number) and one mapper (`toDevice`), so every endpoint answers the same shape.
 */
import { and, eq, gt, ilike, inArray, isNull, lte, ne, or, type SQL } from 'drizzle-orm';
import type { Device, DeviceStatus } from '../../../src/domain/devices.schema';
import type { StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { device_sessions, devices, merchants, orders, products, venues } from '../../db/schema';
import { merchantWhere } from '../../auth/staff.middleware';
import { likePattern } from '../../lib/search';
import { ACTIVE_SESSION_STATUSES, ONLINE_WINDOW_MS, isOnline } from '../../services/devices/sessions';

/** The link a device's QR label carries. */
export function payUrlOf(publicUrl: string, deviceId: number, venueId: number): string {
  return `${publicUrl}/user/pay?device_id=${deviceId}&venue_id=${venueId}`;
}

export const deviceColumns = {
  id: devices.id,
  name: devices.name,
  serial: devices.serial,
  status: devices.status,
  last_heartbeat_at: devices.last_heartbeat_at,
  merchant_id: devices.merchant_id,
  merchant_name: merchants.name,
  venue_id: devices.venue_id,
  venue_name: venues.name,
  product_id: devices.product_id,
  product_name: products.name,
  created_at: devices.created_at,
  order_no: orders.order_no,
  session_status: device_sessions.status,
  ends_at: device_sessions.ends_at,
};

type DeviceRow = Awaited<ReturnType<typeof selectDevices>>[number];

/** The answer shape (fixed: fields may be added, never renamed). */
export function toDevice(row: DeviceRow, publicUrl: string, now: Date): Device {
  const active =
    row.order_no && (row.session_status === 'starting' || row.session_status === 'running')
      ? row.session_status
      : null;
  const left = row.ends_at ? Math.max(0, Math.ceil((row.ends_at.getTime() - now.getTime()) / 60_000)) : null;
  return {
    id: row.id,
    name: row.name,
    serial: row.serial,
    status: row.status as DeviceStatus,
    online: isOnline(row.last_heartbeat_at, row.status, now),
    merchant_id: row.merchant_id,
    merchant_name: row.merchant_name,
    venue_id: row.venue_id,
    venue_name: row.venue_name,
    product_id: row.product_id,
    product_name: row.product_name,
    pay_url: payUrlOf(publicUrl, row.id, row.venue_id),
    last_heartbeat_at: row.last_heartbeat_at?.toISOString() ?? null,
    session: active
      ? {
          order_no: row.order_no!,
          status: active,
          ends_at: row.ends_at?.toISOString() ?? null,
          minutes_left: left,
        }
      : null,
    created_at: row.created_at.toISOString(),
  };
}

/** The select with its joins; callers add `where`, order and paging. */
export function selectDevices(db: Db | Tx) {
  return db
    .select(deviceColumns)
    .from(devices)
    .innerJoin(venues, eq(venues.id, devices.venue_id))
    .innerJoin(products, eq(products.id, devices.product_id))
    .innerJoin(merchants, eq(merchants.id, devices.merchant_id))
    .leftJoin(
      device_sessions,
      and(
        eq(device_sessions.device_id, devices.id),
        inArray(device_sessions.status, ACTIVE_SESSION_STATUSES),
      ),
    )
    .leftJoin(orders, eq(orders.id, device_sessions.order_id));
}

export interface DeviceFilter {
  q?: string;
  venue_id?: number;
  product_id?: number;
  merchant_id?: number;
  status?: DeviceStatus;
  online?: boolean;
}

/** The list's conditions: the staff's merchant scope first, then the filters. */
export function deviceWhere(staff: StaffAuth, f: DeviceFilter, now: Date): SQL | undefined {
  const since = new Date(now.getTime() - ONLINE_WINDOW_MS);
  const onlineSql = and(ne(devices.status, 'offline'), gt(devices.last_heartbeat_at, since));
  const offlineSql = or(
    eq(devices.status, 'offline'),
    isNull(devices.last_heartbeat_at),
    lte(devices.last_heartbeat_at, since),
  );
  return and(
    merchantWhere(staff, devices.merchant_id),
    f.merchant_id ? eq(devices.merchant_id, f.merchant_id) : undefined,
    f.venue_id ? eq(devices.venue_id, f.venue_id) : undefined,
    f.product_id ? eq(devices.product_id, f.product_id) : undefined,
    f.status ? eq(devices.status, f.status) : undefined,
    f.online === undefined ? undefined : f.online ? onlineSql : offlineSql,
    f.q ? or(ilike(devices.name, likePattern(f.q)), ilike(devices.serial, likePattern(f.q))) : undefined,
  );
}
