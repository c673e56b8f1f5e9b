/**
 * The three ledger movements of a withdrawal, each one balanced transaction through the ledger inside the caller's
 * DB transaction: a request moves the amount from available (principal) to frozen; a rejection moves it back; a
 * payout moves it from frozen to the external `payout` wallet. The wallets' CHECK constraint refuses a request
 * above what is available, so two concurrent requests can never freeze the same money.
 */
import type { Tx } from '../../db/client';
import { externalWallet, postTransaction } from '../ledger';

export interface WithdrawalMove {
  wallet_id: number;
  amount_fen: number;
  withdrawal_id?: number | null;
}

export function freezeForWithdrawal(tx: Tx, m: WithdrawalMove): Promise<number> {
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
