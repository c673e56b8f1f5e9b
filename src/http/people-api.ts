/**
 * Typed endpoints of `/backend/sub-users`, `/backend/profit-sharing`, `/backend/merchant/members` (and its refund
 * retry, `/backend/merchant/refunds`) and
 * `/backend/merchant/feedback` over the one HTTP client.
 */
import type { Page } from '../domain/api';
import type { FeedbackInboxPage, FeedbackInboxQuery, InboxFeedback } from '../domain/feedback-inbox.schema';
import type {
  BonusCredit,
  BonusCreditResult,
  MemberDetail,
  MemberHistoryQuery,
  MemberListQuery,
  MemberOrder,
  MemberSession,
  MemberWalletEntry,
  MerchantMember,
} from '../domain/members.schema';
import type { AbnormalRefundInput } from '../domain/abnormal-refund.schema';
import type { RefundRetryResult } from '../domain/refunds.schema';
import type {
  ShareRule,
  ShareRuleChange,
  ShareRuleHistoryQuery,
  ShareRuleInput,
  ShareRuleListQuery,
  ShareRuleUpdate,
} from '../domain/profit-sharing.schema';
import type { SubUser, SubUserInput, SubUserListQuery, SubUserUpdate } from '../domain/sub-users.schema';
import { http } from './client';
import { queryString } from './query-string';

export const subUsersApi = {
  list: (q: SubUserListQuery = {}) => http.get<Page<SubUser>>(`/sub-users${queryString(q)}`),
  create: (body: SubUserInput) => http.post<SubUser>('/sub-users', body),
  update: (id: number, body: SubUserUpdate) => http.put<SubUser>(`/sub-users/${id}`, body),
};

export const profitSharingApi = {
  list: (q: ShareRuleListQuery = {}) => http.get<Page<ShareRule>>(`/profit-sharing${queryString(q)}`),
  /** The signed-in partner's own rules. */
  mine: () => http.get<Page<ShareRule>>('/profit-sharing?mine=1&page_size=100'),
  history: (q: ShareRuleHistoryQuery = {}) =>
    http.get<Page<ShareRuleChange>>(`/profit-sharing/history${queryString(q)}`),
  create: (body: ShareRuleInput) => http.post<ShareRule>('/profit-sharing', body),
  update: (id: number, body: ShareRuleUpdate) => http.put<ShareRule>(`/profit-sharing/${id}`, body),
  remove: (id: number) => http.delete<void>(`/profit-sharing/${id}`),
};

export const membersApi = {
  list: (q: MemberListQuery = {}) => http.get<Page<MerchantMember>>(`/merchant/members${queryString(q)}`),
  get: (id: number, merchantId?: number) =>
    http.get<MemberDetail>(`/merchant/members/${id}${queryString({ merchant_id: merchantId })}`),
  entries: (id: number, q: MemberHistoryQuery) =>
    http.get<Page<MemberWalletEntry>>(`/merchant/members/${id}/entries${queryString(q)}`),
  orders: (id: number, q: MemberHistoryQuery) =>
    http.get<Page<MemberOrder>>(`/merchant/members/${id}/orders${queryString(q)}`),
  sessions: (id: number, q: MemberHistoryQuery) =>
    http.get<Page<MemberSession>>(`/merchant/members/${id}/sessions${queryString(q)}`),
  /** Sends a closed or failed WeChat refund again, or asks about a mismatched one once more (level 1/2). */
  retryRefund: (refundId: number) => http.post<RefundRetryResult>(`/merchant/refunds/${refundId}/retry`, {}),
  /** Redirects a refund WeChat could not pay out: to the member's debit card or the merchant's account. */
  redirectRefund: (refundId: number, body: AbnormalRefundInput) =>
    http.post<RefundRetryResult>(`/merchant/refunds/${refundId}/abnormal`, body),
  /** `key` is the Idempotency-Key: the same key for a retry of the same credit. */
  bonus: (id: number, body: BonusCredit, key: string) =>
    http.post<BonusCreditResult>(`/merchant/members/${id}/bonus`, body, {
      headers: { 'Idempotency-Key': key },
    }),
};

export const feedbackInboxApi = {
  list: (q: FeedbackInboxQuery = {}) => http.get<FeedbackInboxPage>(`/merchant/feedback${queryString(q)}`),
  reply: (id: number, reply: string) => http.post<InboxFeedback>(`/merchant/feedback/${id}/reply`, { reply }),
};
