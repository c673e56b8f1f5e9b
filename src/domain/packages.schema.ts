/**
 * Recharge packages (`/merchant/packages`): pay `pay_fen`, get `bonus_fen` on top. The shapes the API serves and
 * accepts, shared by the server's validation and the merchant screen's form (docs/adding-a-resource.md).
 */
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';
import { fenSchema, SortSchema, yuanTextSchema } from './money.schema';

const name = z.string('请输入套餐名称').trim().min(1, '请输入套餐名称').max(32, '套餐名称最多 32 个字');
const active = z.boolean('启用状态必须是 true 或 false');

/** POST body; the admin names the merchant, a merchant's own comes from its sign-in. */
export const PackageInputSchema = z.object({
  name,
  pay_fen: fenSchema('充值金额', 1),
  bonus_fen: fenSchema('赠送金额', 0).default(0),
  active: active.default(true),
  sort: SortSchema.optional(),
  merchant_id: BodyIdSchema.optional(),
});
export type PackageInput = z.input<typeof PackageInputSchema>;

export const PackageUpdateSchema = PackageInputSchema.omit({ merchant_id: true }).partial();
export type PackageUpdate = z.input<typeof PackageUpdateSchema>;

/** The package form: amounts typed in yuan; parses to a `PackageInput` without merchant and sort. */
export const PackageFormSchema = z.object({
  name,
  pay_fen: yuanTextSchema('充值金额', 1),
  bonus_fen: yuanTextSchema('赠送金额', 0),
  active,
});

/** `GET /backend/merchant/packages?page=&page_size=&merchant_id=&active=` */
export const PackageListQuerySchema = PageQuerySchema.extend({
  merchant_id: QueryIdSchema.optional(),
  active: z.enum(['true', 'false'], 'active 只能是 true 或 false').optional(),
});
/** What the client sends (ids as numbers; the query string carries them as text). */
export type PackageListQuery = {
  page?: number;
  page_size?: number;
  merchant_id?: number;
  active?: 'true' | 'false';
};

export interface Package {
  id: number;
  merchant_id: number;
  merchant_name: string;
  name: string;
  pay_fen: number;
  bonus_fen: number;
  active: boolean;
  sort: number;
  /** Recharges made with this package (a package with orders can be deactivated, not deleted). */
  order_count: number;
  created_at: string;
}
