/**
 * The three ledger movements of a withdrawal, each one balanced transaction through the ledger inside the caller's
 * DB transaction: a request moves the amount from available (principal) to frozen; a rejection moves it back; a
 * payout moves it from frozen to the external `payout` wallet. A request needs a positive available balance that
 * covers it: a merchant's settlement may run negative (a debt to the platform, docs/decisions.md D18), so the
 * wallets' CHECK constraint no longer refuses it there; the freeze locks the wallet row and checks, so two concurrent
 * requests can never freeze the same money.
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { wallets } from '../../db/schema';
import { externalWallet, postTransaction } from '../ledger';

/** A freeze above the available balance (or of a wallet with none): nothing is written. */
export class WithdrawalOverdraftError extends Error {
  override readonly name = 'WithdrawalOverdraftError';
  constructor(
    readonly available_fen: number,
    readonly amount_fen: number,
  ) {
    super(`withdrawal of ${amount_fen} exceeds the available balance ${available_fen}`);
  }
}

export interface WithdrawalMove {
  wallet_id: number;
  amount_fen: number;
  withdrawal_id?: number | null;
}

export async function freezeForWithdrawal(tx: Tx, m: WithdrawalMove): Promise<number> {
  const [w] = await tx
    .select({ available: wallets.principal_fen })
    .from(wallets)
    .where(eq(wallets.id, m.wallet_id))
    .for('update');
  const available = w?.available ?? 0;
  if (!(m.amount_fen > 0) || available < m.amount_fen) {
    throw new WithdrawalOverdraftError(available, m.amount_fen);
  }
  return postTransaction(tx, {
    kind: 'withdrawal_freeze',
    withdrawal_id: m.withdrawal_id ?? null,
    entries: [
      { wallet_id: m.wallet_id, bucket: 'principal', amount_fen: -m.amount_fen },
      { wallet_id: m.wallet_id, bucket: 'frozen', amount_fen: m.amount_fen },
    ],
  });
}

export function unfreezeWithdrawal(tx: Tx, m: WithdrawalMove): Promise<number> {
  return postTransaction(tx, {
    kind: 'withdrawal_unfreeze',
    withdrawal_id: m.withdrawal_id ?? null,
    entries: [
      { wallet_id: m.wallet_id, bucket: 'frozen', amount_fen: -m.amount_fen },
      { wallet_id: m.wallet_id, bucket: 'principal', amount_fen: m.amount_fen },
    ],
  });
}

export async function payOutWithdrawal(tx: Tx, m: WithdrawalMove): Promise<number> {
  const payout = await externalWallet(tx, 'payout');
  return postTransaction(tx, {
    kind: 'withdrawal_payout',
    withdrawal_id: m.withdrawal_id ?? null,
    entries: [
      { wallet_id: m.wallet_id, bucket: 'frozen', amount_fen: -m.amount_fen },
      { wallet_id: payout.id, bucket: 'principal', amount_fen: m.amount_fen },
    ],
  });
}
