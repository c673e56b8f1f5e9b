/**
 * Device models (`/admin/products`): the shapes the API serves and accepts, shared by the server's validation and
 * the admin screen's form. The pattern every staff resource copies (docs/adding-a-resource.md).
 */
import { z } from 'zod';
import { PageQuerySchema } from './api';

export const PRODUCT_CATEGORIES = {
  charger: '充电桩',
  washer: '洗衣机',
  massage: '按摩椅',
  other: '其他',
} as const;
export type ProductCategory = keyof typeof PRODUCT_CATEGORIES;
const CATEGORY_KEYS = Object.keys(PRODUCT_CATEGORIES) as [ProductCategory, ...ProductCategory[]];

export const PRODUCT_STATUSES = { active: '在用', retired: '已停用' } as const;
export type ProductStatus = keyof typeof PRODUCT_STATUSES;

/** POST body, and PUT body (all fields optional there). */
export const ProductInputSchema = z.object({
  name: z.string('请输入型号名称').trim().min(1, '请输入型号名称').max(64, '型号名称最多 64 个字'),
  category: z.enum(CATEGORY_KEYS, '请选择类别'),
  description: z.string('说明必须是文字').trim().max(500, '说明最多 500 字').default(''),
});
export type ProductInput = z.input<typeof ProductInputSchema>;

export const ProductUpdateSchema = ProductInputSchema.partial().extend({
  status: z.enum(['active', 'retired'], '状态只能是 active 或 retired').optional(),
});
export type ProductUpdate = z.input<typeof ProductUpdateSchema>;

/** `GET /backend/admin/products?page=&page_size=&q=&status=` */
export const ProductListQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  status: z.enum(['active', 'retired']).optional(),
});
export type ProductListQuery = z.input<typeof ProductListQuerySchema>;

export interface Product {
  id: number;
  name: string;
  category: ProductCategory;
  description: string;
  status: ProductStatus;
  /** Devices of this model (a model in use cannot be deleted, only retired). */
  device_count: number;
  created_at: string;
}
