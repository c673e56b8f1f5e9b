/**
 * Generated device serials: `SG<merchant id, 3+ digits>-<5+ digits>`, numbered per merchant from the highest one
 * already taken. A transaction-scoped advisory lock per merchant keeps two batches of one merchant from picking the
 * same numbers; the unique index on `devices.serial` stays the last word.
 */
import { and, eq, like, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { devices } from '../../db/schema';
import { conflict } from '../../lib/errors';

/** Advisory lock namespace for serial numbering (the key's second half is the merchant id). */
const SERIAL_LOCK = 727002;

export const serialPrefix = (merchantId: number) => `SG${String(merchantId).padStart(3, '0')}-`;

/** `n` fresh serials for the merchant's new devices (call inside the transaction that inserts them). */
export async function nextSerials(tx: Tx, merchantId: number, n: number): Promise<string[]> {
  await tx.execute(sql`select pg_advisory_xact_lock(${SERIAL_LOCK}, ${merchantId})`);
  const prefix = serialPrefix(merchantId);
  const [row] = await tx
    .select({
      top: sql<number>`coalesce(max(substring(${devices.serial} from ${`^${prefix}([0-9]{1,9})$`})::int), 0)`.mapWith(
        Number,
      ),
    })
    .from(devices)
    .where(like(devices.serial, `${prefix}%`));
  const top = row?.top ?? 0;
  return Array.from({ length: n }, (_, i) => `${prefix}${String(top + i + 1).padStart(5, '0')}`);
}

/** 409 when a serial typed in by staff is already on a device (of any merchant: serials are global). */
export async function assertSerialFree(tx: Tx, serial: string, exceptId?: number): Promise<void> {
  const [taken] = await tx
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.serial, serial)));
  if (taken && taken.id !== exceptId) {
    throw conflict('SERIAL_TAKEN', `序列号 ${serial} 已被其他设备使用`, { serial: '序列号已被使用' });
  }
}
