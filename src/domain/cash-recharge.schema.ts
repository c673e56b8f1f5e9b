/**
 * The employee's cash desk (`/employee/cash-recharge`, docs/decisions.md D12): finding a member by member code and
 * crediting cash to their wallet at the employee's merchant. Shared by the server's validation and the screen.
 */
import { z } from 'zod';
import { BodyIdSchema, QueryIdSchema } from './api';
import { MemberCodeSchema } from './member-code';

/** Largest cash recharge: 10,000 yuan. */
export const MAX_CASH_RECHARGE_FEN = 1_000_000;

/** `GET /backend/employee/member?code=` (`merchant_id` only for the platform admin, who has no merchant). */
export const MemberLookupQuerySchema = z.object({
  code: MemberCodeSchema,
  merchant_id: QueryIdSchema.optional(),
});

export const CashAmountSchema = z
  .number('请输入金额')
  .int('金额必须是整数分')
  .positive('金额必须大于 0')
  .max(MAX_CASH_RECHARGE_FEN, '单笔现金充值最多 10000 元');

export const CashNoteSchema = z
  .string('请填写备注')
  .trim()
  .min(1, '请填写备注（如收款人、顾客描述）')
  .max(200, '备注最多 200 字');

/** `POST /backend/employee/cash-recharge`: a package (pay + bonus) or a typed amount, never both. */
export const CashRechargeRequestSchema = z
  .object({
    member_code: MemberCodeSchema,
    package_id: BodyIdSchema.optional(),
    amount_fen: CashAmountSchema.optional(),
    note: CashNoteSchema,
    merchant_id: BodyIdSchema.optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.package_id === undefined) === (v.amount_fen === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount_fen'],
        message: '请选择一个套餐或填写金额（二选一）',
      });
    }
  });
export type CashRechargeRequest = z.input<typeof CashRechargeRequestSchema>;

/** A member as the cash desk sees them: nickname and balance at this merchant only. */
export interface EmployeeMember {
  id: number;
  code: string;
  nickname: string;
  avatar_url: string;
  merchant_id: number;
  balance_fen: number;
  principal_fen: number;
  bonus_fen: number;
  /** False until the first recharge or pay at this merchant opens the wallet. */
  has_wallet: boolean;
}

/** A cash recharge order (the answer's `order`, and a row of the employee's list). */
export interface CashRechargeOrder {
  order_no: string;
  status: 'paid';
  method: 'cash';
  amount_fen: number;
  bonus_fen: number;
  package_id: number | null;
  package_name: string | null;
  note: string;
  member: { id: number; code: string; nickname: string };
  operator: { id: number; name: string };
  created_at: string;
}

export interface CashRechargeResponse {
  order: CashRechargeOrder;
  /** The member after the credit (balance at this merchant). */
  member: EmployeeMember;
  /** True when this answer repeats an earlier request with the same Idempotency-Key (nothing was credited again). */
  replayed: boolean;
}

/** `GET /backend/employee/cash-recharges`: the employee's own cash recharges of today (local day). */
export interface CashRechargeList {
  items: CashRechargeOrder[];
  total: number;
  total_fen: number;
  date: string;
}
