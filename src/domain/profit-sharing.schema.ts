/**
 * Profit sharing (`/sub-users/profit-sharing`): rules of venue x partner x ratio (basis points of the merchant's net
 * online income). A venue's ratios never sum above 10000 bp (100%). Shared by the server and the screen.
 */
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';

export const FULL_BP = 10_000;

const ratio = z
  .number('请输入分润比例')
  .int('分润比例精确到 0.01%')
  .min(1, '分润比例至少 0.01%')
  .max(FULL_BP, '分润比例最多 100%');

export const ShareRuleInputSchema = z.object({
  venue_id: BodyIdSchema,
  partner_account_id: BodyIdSchema,
  ratio_bp: ratio,
});
export type ShareRuleInput = z.input<typeof ShareRuleInputSchema>;

/** PUT body: only the ratio changes (another venue or partner is another rule). */
export const ShareRuleUpdateSchema = z.object({ ratio_bp: ratio }).strict();
export type ShareRuleUpdate = z.input<typeof ShareRuleUpdateSchema>;

/** `GET /backend/profit-sharing?venue_id=&partner_account_id=&merchant_id=&mine=1` */
export const ShareRuleListQuerySchema = PageQuerySchema.extend({
  venue_id: QueryIdSchema.optional(),
  partner_account_id: QueryIdSchema.optional(),
  merchant_id: QueryIdSchema.optional(),
  /** `1`: the signed-in partner's own rules (any level may ask; the token decides whose). */
  mine: z.enum(['1']).optional(),
});
/** As the client builds it: the merchant filter is a number there. */
export type ShareRuleListQuery = Omit<z.input<typeof ShareRuleListQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};

/** `GET /backend/profit-sharing/history?venue_id=&partner_account_id=&merchant_id=` */
export const ShareRuleHistoryQuerySchema = PageQuerySchema.extend({
  venue_id: QueryIdSchema.optional(),
  partner_account_id: QueryIdSchema.optional(),
  merchant_id: QueryIdSchema.optional(),
});
/** As the client builds it: the merchant filter is a number there. */
export type ShareRuleHistoryQuery = Omit<z.input<typeof ShareRuleHistoryQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};

export interface ShareRule {
  id: number;
  venue_id: number;
  venue_name: string;
  partner_account_id: number;
  partner_name: string;
  partner_username: string;
  /** A disabled partner's rule is kept but shares nothing: payments leave that part to the merchant. */
  partner_status: 'active' | 'disabled';
  ratio_bp: number;
  merchant_id: number;
  merchant_name: string;
  /** Sum of all the venue's ratios now (this rule included). */
  venue_total_bp: number;
  /** When the current ratio took effect (payments from then on use it). */
  valid_from: string;
}

export const SHARE_ACTIONS = { create: '新增', update: '调整', delete: '删除' } as const;

export interface ShareRuleChange {
  id: number;
  rule_id: number;
  venue_id: number;
  venue_name: string;
  partner_account_id: number;
  partner_name: string;
  action: keyof typeof SHARE_ACTIONS;
  ratio_bp: number | null;
  previous_bp: number | null;
  /** Who made the change (null for the system, e.g. demo data). */
  by: string | null;
  created_at: string;
}

/** `2000` → `20%`, `1250` → `12.5%`. */
export function formatBp(bp: number): string {
  return `${(bp / 100).toFixed(2).replace(/\.?0+$/, '')}%`;
}

/** What a percentage typed in a form (`12.5`) is in basis points, or the text when it is not a number. */
export function bpFromPercent(text: string): number | string {
  const t = text.trim();
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(t)) return t;
  return Math.round(Number(t) * 100);
}
