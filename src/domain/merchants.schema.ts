/**
 * Merchants (`/admin/merchants`): the shapes the API serves and accepts, shared by the server's validation and the
 * admin's form. A merchant is added together with its owner account (level 2); the platform fee is in basis points.
 */
import { z } from 'zod';
import { PageQuerySchema } from './api';

export const MERCHANT_STATUSES = { active: '营业中', disabled: '已停用' } as const;
export type MerchantStatus = keyof typeof MERCHANT_STATUSES;
const STATUS_KEYS = Object.keys(MERCHANT_STATUSES) as [MerchantStatus, ...MerchantStatus[]];

/** What the admin is told before disabling a merchant (docs/decisions.md D14). */
export const MERCHANT_DISABLE_WARNING =
  '停用后，该商户的负责人、合伙人和员工将立即退出登录且无法再登录，其设备不再接受新的支付和充值；正在使用中的设备不受影响。可随时重新启用。';

/** 10000 basis points = 100%. */
export const MAX_FEE_RATE_BP = 10_000;
export const DEFAULT_FEE_RATE_BP = 600;

/** `600` → `6.00%`. */
export function feeRatePercent(bp: number): string {
  return `${(bp / 100).toFixed(2)}%`;
}

const feeRate = z
  .number('费率必须是 0 到 10000 之间的整数（基点）')
  .int('费率必须是整数（基点，600 即 6%）')
  .min(0, '费率不能小于 0')
  .max(MAX_FEE_RATE_BP, '费率不能超过 10000 基点（100%）');

/** A staff sign-in name: letters, digits and `_ . -`, so that it can be typed on any phone keyboard. */
export const StaffUsernameSchema = z
  .string('请输入登录账号')
  .trim()
  .min(1, '请输入登录账号')
  .regex(/^[A-Za-z0-9_.-]{3,32}$/, '登录账号为 3 至 32 位字母、数字、下划线、点或横线');

/** An initial password set by the admin; the owner signs in with it. */
export const InitialPasswordSchema = z
  .string('请输入初始密码')
  .min(8, '初始密码至少 8 位')
  .max(128, '密码最多 128 位');

const fields = {
  name: z.string('请输入商户名称').trim().min(1, '请输入商户名称').max(64, '商户名称最多 64 个字'),
  contact_name: z.string('联系人必须是文字').trim().max(32, '联系人最多 32 个字').default(''),
  contact_phone: z
    .string('联系电话必须是文字')
    .trim()
    .regex(/^(?:|\+?[0-9][0-9 -]{4,19})$/, '请输入正确的联系电话（数字，可含 + - 和空格）')
    .default(''),
  fee_rate_bp: feeRate.default(DEFAULT_FEE_RATE_BP),
};

/** POST body: the merchant and its owner account. */
export const MerchantCreateSchema = z.object({
  ...fields,
  owner_username: StaffUsernameSchema,
  owner_password: InitialPasswordSchema,
  /** The owner's display name; the contact (or the merchant's name) when left empty. */
  owner_name: z.string('负责人姓名必须是文字').trim().max(32, '负责人姓名最多 32 个字').optional(),
});
export type MerchantCreate = z.input<typeof MerchantCreateSchema>;

/** PUT body: any of the merchant's own fields and its status (the owner's sign-in is not edited here). */
export const MerchantUpdateSchema = z.object({
  name: fields.name.optional(),
  contact_name: z.string('联系人必须是文字').trim().max(32, '联系人最多 32 个字').optional(),
  contact_phone: fields.contact_phone.optional(),
  fee_rate_bp: feeRate.optional(),
  status: z.enum(STATUS_KEYS, '状态只能是 active 或 disabled').optional(),
});
export type MerchantUpdate = z.input<typeof MerchantUpdateSchema>;

/** `GET /backend/admin/merchants?page=&page_size=&q=&status=` */
export const MerchantListQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  status: z.enum(STATUS_KEYS, '状态只能是 active 或 disabled').optional(),
});
export type MerchantListQuery = z.input<typeof MerchantListQuerySchema>;

/** The answer shape (fixed: fields may be added, never renamed). */
export interface Merchant {
  id: number;
  name: string;
  contact_name: string;
  contact_phone: string;
  fee_rate_bp: number;
  status: MerchantStatus;
  owner: { id: number; username: string; name: string } | null;
  created_at: string;
}
