/**
 * The answers of the wallet and withdrawal endpoints: one mapper per shape (`toWithdrawal`, `walletView`), so every
 * endpoint answers the same fields.
 */
import { and, asc, count, countDistinct, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type {
  WalletEntry,
  WalletView,
  Withdrawal,
  WithdrawalEvent,
  WithdrawalStatus,
} from '../../../src/domain/wallet.schema';
import { WALLET_ENTRY_KINDS } from '../../../src/domain/wallet.schema';
import type { PageQuery } from '../../../src/domain/api';
import type { Db, Tx } from '../../db/client';
import {
  accounts,
  ledger_entries,
  ledger_transactions,
  merchants,
  orders,
  withdrawal_events,
  withdrawals,
} from '../../db/schema';
import { offsetOf } from '../../lib/list';
import type { Wallet } from '../ledger';
import { availableOf, reservedFen } from './requests';

/** Withdrawals matching `where`, newest first, with account, merchant and the events timeline. */
export async function listWithdrawals(
  db: Db | Tx,
  where: SQL | undefined,
  page: PageQuery,
): Promise<{ items: Withdrawal[]; total: number }> {
  // One after another: a transaction handed in runs one query at a time on its connection.
  const rows = await db
    .select({ w: withdrawals, a: accounts, m: { id: merchants.id, name: merchants.name } })
    .from(withdrawals)
    .innerJoin(accounts, eq(accounts.id, withdrawals.account_id))
    .leftJoin(merchants, eq(merchants.id, withdrawals.merchant_id))
    .where(where)
    .orderBy(desc(withdrawals.id))
    .limit(page.page_size)
    .offset(offsetOf(page));
  const [total] = await db.select({ n: count() }).from(withdrawals).where(where);
  const ids = rows.map((r) => r.w.id);
  const events =
    ids.length === 0
      ? []
      : await db
          .select({ e: withdrawal_events, actor: { id: accounts.id, name: accounts.name } })
          .from(withdrawal_events)
          .leftJoin(accounts, eq(accounts.id, withdrawal_events.actor_account_id))
          .where(inArray(withdrawal_events.withdrawal_id, ids))
          .orderBy(asc(withdrawal_events.id));
  const items = rows.map((r): Withdrawal => ({
    id: r.w.id,
    account: { id: r.a.id, name: r.a.name, username: r.a.username, role: r.a.role },
    merchant: r.m,
    amount_fen: r.w.amount_fen,
    status: r.w.status,
    reason: r.w.reason,
    reference: r.w.reference,
    created_at: r.w.created_at.toISOString(),
    updated_at: r.w.updated_at.toISOString(),
    events: events
      .filter((e) => e.e.withdrawal_id === r.w.id)
      .map((e): WithdrawalEvent => ({
        status: e.e.status as WithdrawalStatus,
        actor: e.actor,
        note: e.e.note,
        created_at: e.e.created_at.toISOString(),
      })),
  }));
  return { items, total: total?.n ?? 0 };
}

/** One withdrawal by id in its answer shape (the caller has checked the scope). */
export async function withdrawalById(db: Db | Tx, id: number): Promise<Withdrawal | undefined> {
  const { items } = await listWithdrawals(db, eq(withdrawals.id, id), { page: 1, page_size: 1 });
  return items[0];
}

const available = sql<number>`coalesce(sum(${ledger_entries.amount_fen}) filter (where ${ledger_entries.bucket} <> 'frozen'), 0)`;
const frozen = sql<number>`coalesce(sum(${ledger_entries.amount_fen}) filter (where ${ledger_entries.bucket} = 'frozen'), 0)`;

/** The wallet's balances and a page of its entries (one per ledger movement, newest first). */
export async function walletView(db: Db | Tx, w: Wallet, page: PageQuery): Promise<WalletView> {
  // One after another: inside a transaction the reads share one connection, which runs one query at a time.
  const rows = await db
    .select({
      id: ledger_transactions.id,
      kind: ledger_transactions.kind,
      created_at: ledger_transactions.created_at,
      order_no: orders.order_no,
      withdrawal_id: ledger_transactions.withdrawal_id,
      available: available.mapWith(Number),
      frozen: frozen.mapWith(Number),
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .leftJoin(orders, eq(orders.id, ledger_transactions.order_id))
    .where(eq(ledger_entries.wallet_id, w.id))
    .groupBy(ledger_transactions.id, orders.order_no)
    .orderBy(desc(ledger_transactions.id))
    .limit(page.page_size)
    .offset(offsetOf(page));
  const [total] = await db
    .select({ n: countDistinct(ledger_entries.transaction_id) })
    .from(ledger_entries)
    .where(eq(ledger_entries.wallet_id, w.id));
  const [paid] = await db
    .select({ n: sql<number>`coalesce(sum(${withdrawals.amount_fen}), 0)`.mapWith(Number) })
    .from(withdrawals)
    .where(and(eq(withdrawals.wallet_id, w.id), eq(withdrawals.status, 'paid')));
  const entries = rows.map((r): WalletEntry => ({
    id: r.id,
    kind: r.kind,
    label: WALLET_ENTRY_KINDS[r.kind] ?? r.kind,
    created_at: r.created_at.toISOString(),
    order_no: r.order_no,
    withdrawal_id: r.withdrawal_id,
    available_fen: r.available,
    frozen_fen: r.frozen,
    amount_fen: r.available + r.frozen,
  }));
  const avail = availableOf(w);
  const reserved = await reservedFen(db as Tx, w.id);
  return {
    kind: w.kind === 'partner' ? 'partner' : 'merchant',
    available_fen: avail,
    reserved_fen: reserved,
    withdrawable_fen: Math.max(0, avail - reserved),
    frozen_fen: w.frozen_fen,
    total_fen: avail + w.frozen_fen,
    paid_out_fen: paid?.n ?? 0,
    entries,
    total: total?.n ?? 0,
    page: page.page,
    page_size: page.page_size,
  };
}
