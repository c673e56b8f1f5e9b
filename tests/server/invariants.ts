/**
 * THE shared ledger invariant check (docs/money.md). Every money test calls
 * `assertLedgerInvariants(db)` after it has done its work. It reads the database only, and throws one error that
 * lists every violation it found:
 *
 * 1. every wallet bucket (principal, bonus, frozen) equals the sum of its ledger entries;
 * 2. no wallet except external ones is negative;
 * 3. every ledger transaction has entries and sums to zero;
 * 4. every paid order was booked exactly once (one payment transaction: a duplicate notification must not credit
 *    twice), an unpaid order moved no money, and the refunds booked equal `orders.refunded_fen`;
 * 5. every paid consume order started its device or was refunded: status `paid` only while its session is
 *    `starting`; a failed session or no session at all means fully refunded. With `{ settled: true }` no order may
 *    still be waiting (`paid` with a `starting` session).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../server/db/client';

type Row = Record<string, unknown>;

async function rows(db: Db, query: ReturnType<typeof sql>): Promise<Row[]> {
  const res = (await db.execute(query)) as unknown as { rows: Row[] };
  return res.rows;
}

export interface InvariantOptions {
  /** Also require that no paid consume order is still waiting for its device (all acknowledged or refunded). */
  settled?: boolean;
}

/** Returns the list of violations (empty when the ledger is sound). */
export async function ledgerViolations(db: Db, opts: InvariantOptions = {}): Promise<string[]> {
  const out: string[] = [];

  // 1. Balances equal the sum of their entries, per bucket.
  for (const r of await rows(
    db,
    sql`select w.id, w.kind, w.principal_fen::bigint as p, w.bonus_fen::bigint as b, w.frozen_fen::bigint as f,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'principal'), 0)::bigint as ep,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'bonus'), 0)::bigint as eb,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'frozen'), 0)::bigint as ef
          from wallets w left join ledger_entries e on e.wallet_id = w.id
         group by w.id
        having w.principal_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'principal'), 0)
            or w.bonus_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'bonus'), 0)
            or w.frozen_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'frozen'), 0)`,
  )) {
    out.push(
      `wallet ${r.id} (${r.kind}): balance principal/bonus/frozen ${r.p}/${r.b}/${r.f} but entries sum to ${r.ep}/${r.eb}/${r.ef}`,
    );
  }

  // 2. Nothing but external wallets below zero.
  for (const r of await rows(
    db,
    sql`select id, kind, principal_fen, bonus_fen, frozen_fen from wallets
         where kind <> 'external' and (principal_fen < 0 or bonus_fen < 0 or frozen_fen < 0)`,
  )) {
    out.push(`wallet ${r.id} (${r.kind}) is negative: ${r.principal_fen}/${r.bonus_fen}/${r.frozen_fen}`);
  }

  // 3. Every transaction balances and moves something.
  for (const r of await rows(
    db,
    sql`select t.id, t.kind, count(e.id)::int as n, coalesce(sum(e.amount_fen), 0)::bigint as s
          from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
         group by t.id having count(e.id) = 0 or coalesce(sum(e.amount_fen), 0) <> 0`,
  )) {
    out.push(`ledger transaction ${r.id} (${r.kind}) has ${r.n} entries summing to ${r.s}`);
  }

  // 4. Payments booked once; refunds booked as recorded on the order.
  for (const r of await rows(
    db,
    sql`select o.order_no, o.kind, o.status, o.paid_at is not null as paid, o.amount_fen, o.bonus_fen,
               o.refunded_fen,
               (select count(*)::int from ledger_transactions t where t.order_id = o.id and t.kind = o.kind) as payments,
               (select coalesce(sum(e.amount_fen), 0)::bigint from ledger_entries e
                  join ledger_transactions t on t.id = e.transaction_id
                 where t.order_id = o.id and t.kind = o.kind and e.amount_fen > 0) as paid_in,
               (select coalesce(sum(e.amount_fen), 0)::bigint from ledger_entries e
                  join ledger_transactions t on t.id = e.transaction_id
                 where t.order_id = o.id and t.kind = 'refund' and e.amount_fen > 0) as refunded_in
          from orders o`,
  )) {
    const paid = r.paid === true;
    const payments = Number(r.payments);
    if (r.kind === 'service') {
      // A free service start by staff moves no money at all.
      if (Number(r.amount_fen) !== 0 || Number(r.refunded_in) !== 0 || payments !== 0)
        out.push(`service order ${r.order_no} moved money`);
      continue;
    }
    const expectedIn =
      r.kind === 'recharge' ? Number(r.amount_fen) + Number(r.bonus_fen) : Number(r.amount_fen);
    if (paid && payments !== 1)
      out.push(`order ${r.order_no} (${r.kind}) is paid but has ${payments} payment transactions`);
    if (paid && payments === 1 && Number(r.paid_in) !== expectedIn) {
      out.push(`order ${r.order_no} (${r.kind}) moved ${r.paid_in} on payment, expected ${expectedIn}`);
    }
    if (!paid && (payments !== 0 || Number(r.refunded_in) !== 0)) {
      out.push(`order ${r.order_no} is unpaid (${r.status}) but has money in the ledger`);
    }
    if (!paid && ['paid', 'started', 'completed', 'refunded'].includes(String(r.status))) {
      out.push(`order ${r.order_no} has status ${r.status} without paid_at`);
    }
    if (Number(r.refunded_in) !== Number(r.refunded_fen)) {
      out.push(
        `order ${r.order_no}: refunded_fen ${r.refunded_fen} but refunds in the ledger total ${r.refunded_in}`,
      );
    }
  }

  // 5. Every paid consume order started or was refunded.
  for (const r of await rows(
    db,
    sql`select o.order_no, o.status, o.amount_fen, o.refunded_fen, s.status as session_status
          from orders o left join device_sessions s on s.order_id = o.id
         where o.kind = 'consume' and o.paid_at is not null`,
  )) {
    const fullyRefunded = Number(r.refunded_fen) === Number(r.amount_fen);
    const session = r.session_status as string | null;
    if (session === null && !fullyRefunded) {
      out.push(`order ${r.order_no} is paid, has no device session and was not refunded`);
    }
    if (session === 'failed' && !fullyRefunded) {
      out.push(
        `order ${r.order_no}: its device session failed but only ${r.refunded_fen} of ${r.amount_fen} was refunded`,
      );
    }
    if (r.status === 'paid' && session !== 'starting') {
      out.push(`order ${r.order_no} is still 'paid' while its session is ${session ?? 'missing'}`);
    }
    if (r.status === 'started' && session !== 'running' && session !== 'ended' && session !== 'stopped') {
      out.push(`order ${r.order_no} is 'started' but its session is ${session ?? 'missing'}`);
    }
    if (opts.settled && session === 'starting') {
      out.push(`order ${r.order_no} is still waiting for its device to acknowledge`);
    }
  }

  return out;
}

/** Throws with every violation listed; resolves quietly when the ledger is sound. */
export async function assertLedgerInvariants(db: Db, opts: InvariantOptions = {}): Promise<void> {
  const v = await ledgerViolations(db, opts);
  if (v.length > 0) throw new Error(`ledger invariants violated (${v.length}):\n  - ${v.join('\n  - ')}`);
}
