/**
 * The staff wallet (`/wallet`) and withdrawals (`/merchant/withdrawals`): the shapes the API serves and accepts,
 * shared by the server's validation and the screens. Money is integer fen (docs/decisions.md D5).
 */
import { z } from 'zod';
import { PageQuerySchema, QueryIdSchema } from './api';
import { formatFen, parseYuan } from './money';

/** The smallest withdrawal: 1 yuan. */
export const MIN_WITHDRAWAL_FEN = 100;
/** The largest amount one request may carry (20 million yuan: within an `integer` column). */
export const MAX_WITHDRAWAL_FEN = 2_000_000_000;

export const WITHDRAWAL_STATUSES = {
  requested: '待审核',
  approved: '已批准',
  paid: '已打款',
  rejected: '已驳回',
} as const;
export type WithdrawalStatus = keyof typeof WITHDRAWAL_STATUSES;
const STATUS_KEYS = Object.keys(WITHDRAWAL_STATUSES) as [WithdrawalStatus, ...WithdrawalStatus[]];

/** `POST /backend/wallet/withdrawals` */
export const WithdrawalRequestSchema = z.object({
  amount_fen: z
    .number('请输入提现金额')
    .int('金额必须精确到分')
    .min(MIN_WITHDRAWAL_FEN, '提现金额至少 1 元')
    .max(MAX_WITHDRAWAL_FEN, '提现金额过大'),
});
export type WithdrawalRequest = z.infer<typeof WithdrawalRequestSchema>;

/** A withdrawal amount typed in yuan: a message, or null when it may be requested from `availableFen`. */
export function withdrawalAmountProblem(value: string, availableFen: number): string | null {
  const fen = parseYuan(value);
  if (fen === null) return '请输入正确的金额（最多两位小数）';
  if (fen < MIN_WITHDRAWAL_FEN) return '提现金额至少 1 元';
  if (fen > availableFen) return `超过可提现金额 ${formatFen(Math.max(0, availableFen))}`;
  return null;
}

/** `POST /backend/admin/withdrawals/:id/reject` */
export const WithdrawalRejectSchema = z.object({
  reason: z.string('请填写驳回原因').trim().min(1, '请填写驳回原因').max(200, '驳回原因最多 200 字'),
});
export type WithdrawalReject = z.infer<typeof WithdrawalRejectSchema>;

/** `POST /backend/admin/withdrawals/:id/pay` */
export const WithdrawalPaySchema = z.object({
  reference: z
    .string('请填写转账凭证号')
    .trim()
    .min(1, '请填写转账凭证号')
    .max(100, '转账凭证号最多 100 个字符'),
});
export type WithdrawalPay = z.infer<typeof WithdrawalPaySchema>;

/** `GET /backend/merchant/withdrawals?page=&page_size=&status=&merchant_id=` (merchant_id: the admin's filter). */
export const WithdrawalListQuerySchema = PageQuerySchema.extend({
  status: z.enum(STATUS_KEYS, '状态有误').optional(),
  merchant_id: QueryIdSchema.optional(),
});
/** As the client builds it: the merchant filter is a number there. */
export type WithdrawalListQuery = Omit<z.input<typeof WithdrawalListQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};

/** `GET /backend/wallet?page=&page_size=` (the entries' page). */
export const WalletQuerySchema = PageQuerySchema;
export type WalletQuery = z.input<typeof WalletQuerySchema>;

/** What a ledger movement was, in words for the entries list. */
export const WALLET_ENTRY_KINDS: Record<string, string> = {
  consume: '消费分账',
  refund: '退款冲回',
  recharge: '充值',
  withdrawal_freeze: '提现冻结',
  withdrawal_unfreeze: '提现驳回解冻',
  withdrawal_payout: '提现打款',
};

export interface WalletEntry {
  /** The ledger transaction. */
  id: number;
  kind: string;
  label: string;
  created_at: string;
  order_no: string | null;
  withdrawal_id: number | null;
  /** Change of the available balance (signed fen). */
  available_fen: number;
  /** Change of the frozen balance (signed fen). */
  frozen_fen: number;
  /** Change of the total (available + frozen). */
  amount_fen: number;
}

export interface WalletView {
  kind: 'merchant' | 'partner';
  /** May be below zero for a settlement wallet that carries a debt; a withdrawal needs it above zero. */
  available_fen: number;
  /** Part of the available balance from sessions still running (a refund may take it back): not withdrawable yet. */
  reserved_fen: number;
  /** What a request may take now: available minus reserved, never below zero. */
  withdrawable_fen: number;
  frozen_fen: number;
  total_fen: number;
  /** Everything paid out to the account so far. */
  paid_out_fen: number;
  entries: WalletEntry[];
  total: number;
  page: number;
  page_size: number;
}

export interface WithdrawalEvent {
  status: WithdrawalStatus;
  actor: { id: number; name: string } | null;
  note: string | null;
  created_at: string;
}

export interface Withdrawal {
  id: number;
  account: { id: number; name: string; username: string; role: string };
  merchant: { id: number; name: string } | null;
  amount_fen: number;
  status: WithdrawalStatus;
  reason: string | null;
  reference: string | null;
  created_at: string;
  updated_at: string;
  events: WithdrawalEvent[];
}
