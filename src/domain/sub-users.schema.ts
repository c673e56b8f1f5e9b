/**
 * Sub-users (`/sub-users/sub-users`): a merchant's partner (level 3) and employee (level 4) accounts. The shapes the
 * API serves and accepts, shared by the server's validation and the screen's forms.
 */
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';

export const SUB_USER_ROLES = { partner: '分润合伙人', employee: '员工' } as const;
export type SubUserRole = keyof typeof SUB_USER_ROLES;
export const SUB_USER_STATUSES = { active: '正常', disabled: '已停用' } as const;
export type SubUserStatus = keyof typeof SUB_USER_STATUSES;

const password = z
  .string('请输入密码')
  .min(8, '密码至少 8 位')
  .max(64, '密码最多 64 位')
  .regex(/^\S+$/, '密码不能含空格');
const name = z.string('请输入姓名').trim().min(1, '请输入姓名').max(32, '姓名最多 32 个字');
const phone = z
  .string('手机号必须是文字')
  .trim()
  .regex(/^(1\d{10})?$/, '请输入 11 位手机号')
  .default('');

/** POST body. `merchant_id` is read for the platform admin only; a merchant's sub-users are always its own. */
export const SubUserInputSchema = z.object({
  username: z
    .string('请输入用户名')
    .trim()
    .min(3, '用户名至少 3 位')
    .max(32, '用户名最多 32 位')
    .regex(/^[A-Za-z0-9_.-]+$/, '用户名只能用字母、数字、下划线、点和横线'),
  name,
  phone,
  role: z.enum(['partner', 'employee'], '请选择角色'),
  password,
  merchant_id: BodyIdSchema.optional(),
});
export type SubUserInput = z.input<typeof SubUserInputSchema>;

/** PUT body: edit name and phone, reset the password, disable or enable. */
export const SubUserUpdateSchema = z
  .object({
    name: name.optional(),
    phone: phone.optional(),
    password: password.optional(),
    status: z.enum(['active', 'disabled'], '状态只能是 active 或 disabled').optional(),
  })
  .strict();
export type SubUserUpdate = z.input<typeof SubUserUpdateSchema>;

/** `GET /backend/sub-users?page=&page_size=&q=&role=&status=&merchant_id=` */
export const SubUserListQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  role: z.enum(['partner', 'employee']).optional(),
  status: z.enum(['active', 'disabled']).optional(),
  merchant_id: QueryIdSchema.optional(),
});
/** As the client builds it: the merchant filter is a number there. */
export type SubUserListQuery = Omit<z.input<typeof SubUserListQuerySchema>, 'merchant_id'> & {
  merchant_id?: number;
};

export interface SubUser {
  id: number;
  username: string;
  name: string;
  phone: string;
  role: SubUserRole;
  level: 3 | 4;
  status: SubUserStatus;
  merchant_id: number;
  merchant_name: string;
  created_at: string;
}
