/**
 * THE shared ledger invariant check (docs/money.md). Every money test calls
 * `assertLedgerInvariants(db)` after it has done its work. It reads the database only, and throws one error that
 * lists every violation it found:
 *
 * 1. every wallet bucket (principal, cash principal, bonus, frozen) equals the sum of its ledger entries;
 * 2. no wallet except external ones is negative, but for a merchant's settlement principal (a debt to the platform,
 *    docs/decisions.md D18);
 * 3. every ledger transaction has entries and sums to zero;
 * 4. every paid order was booked exactly once (one payment transaction taking exactly its amount from the payer: a
 *    duplicate notification must not credit twice), an unpaid order moved no money, the refunds booked equal
 *    `orders.refunded_fen`, and a consume's `cash_fen` is the cash it took;
 * 5. every paid consume order started its device or was refunded: status `paid` only while its session is
 *    `starting`; a failed session or no session at all means fully refunded (booked, or for a WeChat pay decided in
 *    the refund outbox and not yet settled). With `{ settled: true }` no order may still be waiting (`paid` with a
 *    `starting` session);
 * 6. for each merchant (docs/decisions.md D18): settlement booked by orders + cash held (cash taken − cash refunded)
 *    = earned revenue after fee and shares + the cash principal its members have not spent yet;
 * 7. the WeChat refund outbox: only WeChat-paid consume orders have rows; the succeeded rows of an order add up to
 *    its booked refunds; booked refunds plus the rows on their way never exceed the amount paid.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';

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
               w.cash_principal_fen::bigint as c,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'principal'), 0)::bigint as ep,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'cash_principal'), 0)::bigint as ec,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'bonus'), 0)::bigint as eb,
               coalesce(sum(e.amount_fen) filter (where e.bucket = 'frozen'), 0)::bigint as ef
          from wallets w left join ledger_entries e on e.wallet_id = w.id
         group by w.id
        having w.principal_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'principal'), 0)
            or w.bonus_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'bonus'), 0)
            or w.frozen_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'frozen'), 0)
            or w.cash_principal_fen <> coalesce(sum(e.amount_fen) filter (where e.bucket = 'cash_principal'), 0)`,
  )) {
    out.push(
      `wallet ${r.id} (${r.kind}): balance principal/cash/bonus/frozen ${r.p}/${r.c}/${r.b}/${r.f} but entries sum to ${r.ep}/${r.ec}/${r.eb}/${r.ef}`,
    );
  }

  // 2. Nothing but external wallets below zero; a merchant's settlement principal may be a debt.
  for (const r of await rows(
    db,
    sql`select id, kind, principal_fen, cash_principal_fen, bonus_fen, frozen_fen from wallets
         where kind <> 'external' and ((principal_fen < 0 and kind <> 'merchant') or cash_principal_fen < 0
                                       or bonus_fen < 0 or frozen_fen < 0)`,
  )) {
    out.push(
      `wallet ${r.id} (${r.kind}) is negative: ${r.principal_fen}/${r.cash_principal_fen}/${r.bonus_fen}/${r.frozen_fen}`,
    );
  }
  for (const r of await rows(
    db,
    sql`select id, kind from wallets where kind <> 'member' and cash_principal_fen <> 0`,
  )) {
    out.push(`wallet ${r.id} (${r.kind}) holds cash principal; only member wallets do`);
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
               (select coalesce(-sum(e.amount_fen), 0)::bigint from ledger_entries e
                  join ledger_transactions t on t.id = e.transaction_id join wallets w on w.id = e.wallet_id
                 where t.order_id = o.id and t.kind = o.kind and e.amount_fen < 0
                   and w.kind in ('member', 'external')) as paid_in,
               (select coalesce(sum(e.amount_fen), 0)::bigint from ledger_entries e
                  join ledger_transactions t on t.id = e.transaction_id join wallets w on w.id = e.wallet_id
                 where t.order_id = o.id and t.kind = 'refund' and e.amount_fen > 0
                   and w.kind in ('member', 'external')) as refunded_in,
               o.method, o.cash_fen,
               (select coalesce(-sum(e.amount_fen), 0)::bigint from ledger_entries e
                  join ledger_transactions t on t.id = e.transaction_id
                 where t.order_id = o.id and t.kind = 'consume' and e.bucket = 'cash_principal') as cash_taken
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
    const cashExpected =
      r.kind !== 'consume' || !paid ? 0 : r.method === 'cash' ? Number(r.amount_fen) : Number(r.cash_taken);
    if (Number(r.cash_fen) !== cashExpected) {
      out.push(`order ${r.order_no}: cash_fen ${r.cash_fen} but it took ${cashExpected} in cash`);
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
    sql`select o.order_no, o.status, o.amount_fen, o.refunded_fen, s.status as session_status,
               (select coalesce(sum(f.amount_fen), 0)::bigint from wechat_refunds f
                 where f.order_id = o.id and f.status <> 'succeeded') as outstanding
          from orders o left join device_sessions s on s.order_id = o.id
         where o.kind = 'consume' and o.paid_at is not null`,
  )) {
    const fullyRefunded = Number(r.refunded_fen) + Number(r.outstanding) === Number(r.amount_fen);
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

  out.push(...(await merchantCashViolations(db)));
  out.push(...(await refundOutboxViolations(db)));
  return out;
}

/** 7. The WeChat refund outbox agrees with the orders and the ledger (docs/money.md "WeChat refunds"). */
async function refundOutboxViolations(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const r of await rows(
    db,
    sql`select o.order_no, o.kind, o.method, o.amount_fen, o.refunded_fen,
               coalesce(sum(f.amount_fen) filter (where f.status = 'succeeded'), 0)::bigint as succeeded,
               coalesce(sum(f.amount_fen) filter (where f.status <> 'succeeded'), 0)::bigint as outstanding
          from orders o join wechat_refunds f on f.order_id = o.id
         group by o.id`,
  )) {
    if (r.kind !== 'consume' || r.method !== 'wechat')
      out.push(`order ${r.order_no} (${r.kind}, ${r.method}) has WeChat refunds`);
    if (Number(r.succeeded) !== Number(r.refunded_fen))
      out.push(
        `order ${r.order_no}: WeChat refunds succeeded ${r.succeeded} but refunded_fen ${r.refunded_fen}`,
      );
    if (Number(r.refunded_fen) + Number(r.outstanding) > Number(r.amount_fen))
      out.push(`order ${r.order_no}: refunds ${r.refunded_fen} + ${r.outstanding} exceed ${r.amount_fen}`);
  }
  return out;
}

/**
 * 6. Per merchant (docs/decisions.md D18), computed from independent sources: the settlement wallet's entries in
 * order movements (withdrawals and other non-order movements aside); cash held from the cash orders; earned revenue
 * from the consume orders net of refunds, less what their movements gave to promotion (bonus spent), the platform
 * and the partners; the members' unspent cash principal from their wallets.
 */
async function merchantCashViolations(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const r of await rows(
    db,
    sql`select m.id,
          (select coalesce(sum(e.amount_fen), 0)::bigint from ledger_entries e
             join ledger_transactions t on t.id = e.transaction_id join wallets w on w.id = e.wallet_id
            where w.kind = 'merchant' and w.merchant_id = m.id and t.order_id is not null) as settlement,
          (select coalesce(sum(case when o.kind = 'recharge' then o.amount_fen
                                    else o.amount_fen - o.refunded_fen end), 0)::bigint
             from orders o where o.merchant_id = m.id and o.method = 'cash' and o.paid_at is not null) as cash_held,
          (select coalesce(sum(o.amount_fen - o.refunded_fen), 0)::bigint from orders o
            where o.merchant_id = m.id and o.kind = 'consume' and o.paid_at is not null) as sales,
          (select coalesce(sum(e.amount_fen), 0)::bigint from ledger_entries e
             join ledger_transactions t on t.id = e.transaction_id join orders o on o.id = t.order_id
             join wallets w on w.id = e.wallet_id
            where o.merchant_id = m.id and o.kind = 'consume' and t.kind in ('consume', 'refund')
              and (w.kind in ('platform', 'partner') or (w.kind = 'external' and w.code = 'promotion'))) as deductions,
          (select coalesce(sum(w.cash_principal_fen), 0)::bigint from wallets w
            where w.kind = 'member' and w.merchant_id = m.id) as members_cash
        from merchants m`,
  )) {
    const left = Number(r.settlement) + Number(r.cash_held);
    const earned = Number(r.sales) - Number(r.deductions);
    if (left !== earned + Number(r.members_cash)) {
      out.push(
        `merchant ${r.id}: settlement ${r.settlement} + cash held ${r.cash_held} = ${left}, but earned ${earned} + members' unspent cash ${r.members_cash} = ${earned + Number(r.members_cash)}`,
      );
    }
  }
  return out;
}

/** Throws with every violation listed; resolves quietly when the ledger is sound. */
export async function assertLedgerInvariants(db: Db, opts: InvariantOptions = {}): Promise<void> {
  const v = await ledgerViolations(db, opts);
  if (v.length > 0) throw new Error(`ledger invariants violated (${v.length}):\n  - ${v.join('\n  - ')}`);
}
