/**
 * Members (`/merchant/members`): end users with a wallet or an order at the merchant, their page, and a bonus credit
 * (compensation) with a required note. Shared by the server's validation and the screen.
 */
import type { WechatRefundView } from './refunds.schema';
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';

/** Largest single bonus credit: 1000 yuan. */
export const MAX_BONUS_FEN = 100_000;

export const MemberListQuerySchema = PageQuerySchema.extend({
  /** Nickname, or the member's number. */
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  merchant_id: QueryIdSchema.optional(),
});
/** As the client builds it: the merchant filter is a number there. */
export type MemberListQuery = Omit<z.input<typeof MemberListQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};

export const MemberDetailQuerySchema = z.object({ merchant_id: QueryIdSchema.optional() });

/** `GET /backend/merchant/members/:id/entries | orders | sessions?page=&page_size=&merchant_id=` (newest first). */
export const MemberHistoryQuerySchema = PageQuerySchema.extend({ merchant_id: QueryIdSchema.optional() });
/** As the client builds it: the merchant is a number there. */
export type MemberHistoryQuery = Omit<z.input<typeof MemberHistoryQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};
export const MEMBER_HISTORIES = ['entries', 'orders', 'sessions'] as const;
export type MemberHistory = (typeof MEMBER_HISTORIES)[number];

export const BonusCreditSchema = z.object({
  amount_fen: z
    .number('请输入金额')
    .int('金额精确到分')
    .min(1, '金额至少 0.01 元')
    .max(MAX_BONUS_FEN, '单次最多赠送 1000 元'),
  note: z.string('请填写原因').trim().min(2, '请填写赠送原因（至少 2 个字）').max(200, '原因最多 200 字'),
  /** The platform admin names the merchant whose wallet is credited; a merchant's is its own. */
  merchant_id: BodyIdSchema.optional(),
});
export type BonusCredit = z.input<typeof BonusCreditSchema>;

/** A member at one merchant (the admin's list without a merchant filter has one row per member and merchant). */
export interface MerchantMember {
  id: number;
  nickname: string;
  avatar_url: string;
  merchant_id: number;
  merchant_name: string;
  balance_fen: number;
  /** The member's own money here: online and cash principal together. */
  principal_fen: number;
  /** Of which paid in cash at the counter. */
  cash_principal_fen: number;
  bonus_fen: number;
  /** Last order at this merchant (any status), or when the wallet was opened. */
  last_visit_at: string | null;
  orders: number;
  /** Device uses paid, net of refunds. */
  consume_total_fen: number;
  /** Recharges paid (bonus excluded), net of refunds. */
  recharge_total_fen: number;
}

export interface MemberWalletEntry {
  id: number;
  kind: string;
  memo: string;
  bucket: 'principal' | 'bonus' | 'frozen';
  amount_fen: number;
  order_no: string | null;
  created_at: string;
}

export interface MemberOrder {
  order_no: string;
  kind: 'recharge' | 'consume';
  method: 'wallet' | 'wechat' | 'cash';
  status: string;
  amount_fen: number;
  bonus_fen: number;
  refunded_fen: number;
  device_name: string | null;
  created_at: string;
  /** The order's latest refund to WeChat (a WeChat pay), with its state and WeChat's word; null otherwise. */
  wechat_refund: WechatRefundView | null;
}

export interface MemberSession {
  id: number;
  order_no: string;
  device_name: string;
  minutes: number;
  status: string;
  started_at: string | null;
  ended_at: string | null;
  refund_fen: number;
}

/** The member's page: the latest 50 of each list (each pages on its own `/entries`, `/orders`, `/sessions`). */
export interface MemberDetail {
  member: MerchantMember;
  entries: MemberWalletEntry[];
  orders: MemberOrder[];
  sessions: MemberSession[];
}

export interface BonusCreditResult {
  id: number;
  member_id: number;
  merchant_id: number;
  amount_fen: number;
  note: string;
  created_at: string;
  balance_fen: number;
  bonus_fen: number;
}

export const KIND_LABELS: Record<string, string> = {
  recharge: '充值',
  consume: '消费',
  refund: '退款',
  bonus_credit: '赠送',
};
