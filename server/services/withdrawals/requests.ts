/**
 * Withdrawal requests and the admin's actions on them, each inside the caller's DB transaction: the state change,
 * its ledger movement (movements.ts), its `withdrawal_events` row (who and when) and its audit row commit or roll
 * back together. Who may do what is the lifecycle table (lifecycle.ts); scoping is the merchant of the request.
 */
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { StaffAuth } from '../../context';
import type { Tx } from '../../db/client';
import {
  device_sessions,
  ledger_entries,
  ledger_transactions,
  wallets,
  wechat_refunds,
  withdrawal_events,
  withdrawals,
} from '../../db/schema';
import { conflict, forbidden, HttpError, notFound } from '../../lib/errors';
import { assertOwnMerchant } from '../../auth/staff.middleware';
import { writeAudit } from '../audit';
import { merchantWallet, partnerWallet, type Wallet } from '../ledger';
import { transition, type WithdrawalAction } from './lifecycle';
import { freezeForWithdrawal, payOutWithdrawal, unfreezeWithdrawal } from './movements';

export type WithdrawalRow = typeof withdrawals.$inferSelect;

/**
 * The staff account's own wallet: a merchant's settlement wallet (level 2) or a partner's share wallet (level 3),
 * opened with zero balance on first use. Other levels have no wallet (403 NO_WALLET).
 */
export async function ownWallet(tx: Tx, staff: StaffAuth): Promise<Wallet> {
  if (staff.level === 2 && staff.merchant_id !== null) return merchantWallet(tx, staff.merchant_id);
  if (staff.level === 3) return partnerWallet(tx, staff.account_id, staff.merchant_id);
  throw forbidden('此账号没有钱包：钱包属于商户和分润合伙人', 'NO_WALLET');
}

/** Available balance of a settlement or share wallet: its principal (these wallets hold no bonus). */
export const availableOf = (w: Pick<Wallet, 'principal_fen' | 'bonus_fen'>) => w.principal_fen + w.bonus_fen;

/**
 * What the wallet holds from sessions still starting or running (docs/decisions.md D15): such a session may still
 * be stopped early or fail, and its refund takes the split back from this wallet, so that part is not withdrawable
 * until the session has ended. Likewise what it holds from orders with a WeChat refund on its way (the reversal is
 * booked when WeChat reports success, docs/decisions.md D22).
 */
export async function reservedFen(tx: Tx, walletId: number): Promise<number> {
  const [r] = await tx
    .select({ n: sql<number>`coalesce(sum(${ledger_entries.amount_fen}), 0)`.mapWith(Number) })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .leftJoin(device_sessions, eq(device_sessions.order_id, ledger_transactions.order_id))
    .where(
      and(
        eq(ledger_entries.wallet_id, walletId),
        eq(ledger_entries.bucket, 'principal'),
        inArray(ledger_transactions.kind, ['consume', 'refund']),
        or(
          inArray(device_sessions.status, ['starting', 'running']),
          sql`exists (select 1 from ${wechat_refunds} where ${wechat_refunds.order_id} = ${ledger_transactions.order_id}
                      and ${wechat_refunds.status} <> 'succeeded')`,
        ),
      ),
    );
  return Math.max(0, r?.n ?? 0);
}

export interface RequestResult {
  withdrawal: WithdrawalRow;
  /** True when the Idempotency-Key was seen before and the first request is answered again. */
  replay: boolean;
}

/**
 * Requests a withdrawal of `amountFen` from the account's own wallet and freezes it at once. The wallet row is
 * locked first, so concurrent requests run one after another and each sees what the previous one froze; the
 * Idempotency-Key is looked up after the lock, so a repeat that raced the first still finds it.
 */
export async function requestWithdrawal(
  tx: Tx,
  staff: StaffAuth,
  input: { amount_fen: number; idempotency_key?: string | undefined; now: Date },
): Promise<RequestResult> {
  const opened = await ownWallet(tx, staff);
  const [w] = await tx.select().from(wallets).where(eq(wallets.id, opened.id)).for('update');
  if (!w) throw notFound('钱包不存在');
  const key = input.idempotency_key;
  if (key !== undefined) {
    const [seen] = await tx
      .select()
      .from(withdrawals)
      .where(and(eq(withdrawals.account_id, staff.account_id), eq(withdrawals.idempotency_key, key)));
    if (seen) {
      if (seen.amount_fen !== input.amount_fen) {
        throw conflict('IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的提现申请', {
          withdrawal_id: seen.id,
        });
      }
      return { withdrawal: seen, replay: true };
    }
  }
  const available = availableOf(w);
  const reserved = await reservedFen(tx, w.id);
  const withdrawable = available - reserved;
  const details = { available_fen: available, reserved_fen: reserved, withdrawable_fen: withdrawable };
  if (withdrawable <= 0) {
    throw conflict(
      'NO_AVAILABLE_BALANCE',
      reserved > 0 ? '没有可提现的余额：设备使用中的分账需在使用结束后才能提现' : '没有可提现的余额',
      details,
    );
  }
  if (input.amount_fen > withdrawable) {
    throw conflict(
      'INSUFFICIENT_BALANCE',
      `可提现余额不足：最多可提 ${(withdrawable / 100).toFixed(2)} 元${reserved > 0 ? '（设备使用中的分账需在使用结束后才能提现）' : ''}`,
      details,
    );
  }
  const [row] = await tx
    .insert(withdrawals)
    .values({
      merchant_id: staff.merchant_id,
      account_id: staff.account_id,
      wallet_id: w.id,
      amount_fen: input.amount_fen,
      status: 'requested',
      idempotency_key: key ?? null,
      created_at: input.now,
      updated_at: input.now,
    })
    .returning();
  if (!row) throw new Error('withdrawal not inserted');
  await freezeForWithdrawal(tx, { wallet_id: w.id, amount_fen: row.amount_fen, withdrawal_id: row.id });
  await tx.insert(withdrawal_events).values({
    withdrawal_id: row.id,
    status: 'requested',
    actor_account_id: staff.account_id,
    created_at: input.now,
  });
  await writeAudit(tx, staff, {
    action: 'withdrawals.request',
    entity: 'withdrawals',
    entity_id: row.id,
    merchant_id: row.merchant_id,
    after: { amount_fen: row.amount_fen, status: row.status, wallet_id: w.id },
  });
  return { withdrawal: row, replay: false };
}

/**
 * Approves, rejects (with a reason; the amount is unfrozen) or pays (with a transfer reference; the frozen amount
 * leaves to the external payout wallet) a withdrawal. Another merchant's request answers 404; an action the
 * lifecycle table does not allow answers 403 (wrong actor) or 409 (wrong state) and changes nothing.
 */
export async function actOnWithdrawal(
  tx: Tx,
  staff: StaffAuth,
  input: { id: number; action: WithdrawalAction; note?: string; now: Date },
): Promise<WithdrawalRow> {
  const [row] = await tx.select().from(withdrawals).where(eq(withdrawals.id, input.id)).for('update');
  if (!row) throw notFound('提现申请不存在');
  assertOwnMerchant(staff, row.merchant_id, '提现申请');
  const t = transition(row.status, input.action, staff.level);
  if (!t.ok) {
    throw new HttpError(t.status, t.code === 'forbidden' ? 'FORBIDDEN' : 'ILLEGAL_TRANSITION', t.message, {
      status: row.status,
    });
  }
  const move = { wallet_id: row.wallet_id, amount_fen: row.amount_fen, withdrawal_id: row.id };
  if (input.action === 'reject') await unfreezeWithdrawal(tx, move);
  if (input.action === 'pay') await payOutWithdrawal(tx, move);
  const [after] = await tx
    .update(withdrawals)
    .set({
      status: t.to,
      updated_at: input.now,
      ...(input.action === 'reject' ? { reason: input.note ?? null } : {}),
      ...(input.action === 'pay' ? { reference: input.note ?? null } : {}),
    })
    .where(eq(withdrawals.id, row.id))
    .returning();
  await tx.insert(withdrawal_events).values({
    withdrawal_id: row.id,
    status: t.to,
    actor_account_id: staff.account_id,
    note: input.note ?? null,
    created_at: input.now,
  });
  await writeAudit(tx, staff, {
    action: `withdrawals.${input.action}`,
    entity: 'withdrawals',
    entity_id: row.id,
    merchant_id: row.merchant_id,
    before: { status: row.status },
    after: { status: t.to },
    ...(input.note ? { extra: { note: input.note } } : {}),
  });
  return after!;
}
