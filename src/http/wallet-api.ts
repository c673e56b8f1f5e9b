/** Typed endpoints of `/backend/wallet` and the withdrawals over the one HTTP client. */
import type { Page, PageQuery } from '../domain/api';
import type { WalletQuery, WalletView, Withdrawal, WithdrawalListQuery } from '../domain/wallet.schema';
import { http } from './client';
import { queryString as query } from './query-string';

export const walletApi = {
  get: (q: WalletQuery = {}) => http.get<WalletView>(`/wallet${query(q)}`),
  withdrawals: (q: Partial<PageQuery> = {}) => http.get<Page<Withdrawal>>(`/wallet/withdrawals${query(q)}`),
  /** Freezes the amount at once; `key` is the Idempotency-Key (the same on a retry: one request is created). */
  requestWithdrawal: (amount_fen: number, key: string) =>
    http.post<Withdrawal>('/wallet/withdrawals', { amount_fen }, { headers: { 'Idempotency-Key': key } }),
};

export const withdrawalsApi = {
  list: (q: WithdrawalListQuery = {}) => http.get<Page<Withdrawal>>(`/merchant/withdrawals${query(q)}`),
  get: (id: number) => http.get<Withdrawal>(`/merchant/withdrawals/${id}`),
  approve: (id: number) => http.post<Withdrawal>(`/admin/withdrawals/${id}/approve`, {}),
  reject: (id: number, reason: string) =>
    http.post<Withdrawal>(`/admin/withdrawals/${id}/reject`, { reason }),
  pay: (id: number, reference: string) =>
    http.post<Withdrawal>(`/admin/withdrawals/${id}/pay`, { reference }),
};
