/**
 * The audit log: who changed what, with the row before and after. Every write to money, prices, permissions,
 * accounts or devices calls `writeAudit` with the transaction that makes the change, so the audit row commits or
 * rolls back with it (docs/adding-a-resource.md).
 */
import type { StaffAuth } from '../context';
import type { Tx } from '../db/client';
import { audit_log } from '../db/schema';

export interface AuditEntry {
  /** Dotted verb, `<entity>.<verb>`: `products.create`, `devices.move`, `withdrawals.approve`. */
  action: string;
  /** Table or resource name: `products`, `devices`. */
  entity: string;
  entity_id?: number | string | null;
  /** The merchant the row belongs to (null for platform rows such as products). */
  merchant_id?: number | null;
  before?: unknown;
  after?: unknown;
  /** Anything else worth keeping (a reason, a note, a batch size). */
  extra?: Record<string, unknown>;
}

/** Writes one audit row inside `tx`, attributed to the signed-in staff account (null for the system itself). */
export async function writeAudit(tx: Tx, staff: Pick<StaffAuth, 'account_id'> | null, entry: AuditEntry) {
  const details: Record<string, unknown> = { ...entry.extra };
  if (entry.before !== undefined) details.before = entry.before;
  if (entry.after !== undefined) details.after = entry.after;
  await tx.insert(audit_log).values({
    account_id: staff?.account_id ?? null,
    merchant_id: entry.merchant_id ?? null,
    action: entry.action,
    entity: entry.entity,
    entity_id: entry.entity_id == null ? null : String(entry.entity_id),
    details,
  });
}

/**
 * The audited edit of one merchant-owned row, inside `tx`: reads it as the staff may see it (`find` answers 404
 * otherwise), applies `input` (nothing to change: answers the row as it is), reads it again and writes the
 * `<entity>.update` audit row with both. The venues and packages routers share it.
 */
export async function updateAudited<Row extends { merchant_id: number }>(
  tx: Tx,
  staff: StaffAuth,
  o: {
    entity: string;
    id: number;
    input: Record<string, unknown>;
    find: (tx: Tx, staff: StaffAuth, id: number) => Promise<Row>;
    update: (tx: Tx, id: number, input: Record<string, unknown>) => Promise<unknown>;
  },
): Promise<Row> {
  const before = await o.find(tx, staff, o.id);
  if (Object.keys(o.input).length === 0) return before;
  await o.update(tx, o.id, o.input);
  const after = await o.find(tx, staff, o.id);
  await writeAudit(tx, staff, {
    action: `${o.entity}.update`,
    entity: o.entity,
    entity_id: o.id,
    merchant_id: after.merchant_id,
    before,
    after,
  });
  return after;
}
