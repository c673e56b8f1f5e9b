/**
 * Venues (`/merchant/venues`) and the service prices edited on each venue: the shapes the API serves and accepts,
 * shared by the server's validation and the merchant screen's forms (docs/adding-a-resource.md).
 */
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';
import { fenSchema, SortSchema, yuanTextSchema } from './money.schema';

const name = z.string('请输入场地名称').trim().min(1, '请输入场地名称').max(64, '场地名称最多 64 个字');
const address = z.string('地址必须是文字').trim().max(200, '地址最多 200 字');

/** POST body. The admin names the merchant; a merchant's own comes from its sign-in (a body value is checked). */
export const VenueInputSchema = z.object({
  name,
  address: address.default(''),
  merchant_id: BodyIdSchema.optional(),
});
export type VenueInput = z.input<typeof VenueInputSchema>;

/** PUT body: name and address (a venue never changes merchant). */
export const VenueUpdateSchema = z.object({ name: name.optional(), address: address.optional() });
export type VenueUpdate = z.input<typeof VenueUpdateSchema>;

/** `GET /backend/merchant/venues?page=&page_size=&q=&merchant_id=` (merchant_id: the admin's filter). */
export const VenueListQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  merchant_id: QueryIdSchema.optional(),
});
/** What the client sends (ids as numbers; the query string carries them as text). */
export type VenueListQuery = { page?: number; page_size?: number; q?: string; merchant_id?: number };

export interface Venue {
  id: number;
  name: string;
  address: string;
  merchant_id: number;
  merchant_name: string;
  /** Service prices of the venue, and how many of them end users can choose. */
  price_count: number;
  active_price_count: number;
  device_count: number;
  created_at: string;
}

// ---------------------------------------------------------------- service prices

const priceName = z.string('请输入价格名称').trim().min(1, '请输入价格名称').max(32, '价格名称最多 32 个字');
const MINUTES_MSG = '时长必须是 1 到 1440 之间的整数（分钟）';
const minutes = z.number(MINUTES_MSG).int(MINUTES_MSG).min(1, MINUTES_MSG).max(1440, MINUTES_MSG);
const active = z.boolean('启用状态必须是 true 或 false');

/** POST body of a price; `sort` defaults to after the last one. */
export const PriceInputSchema = z.object({
  name: priceName,
  minutes,
  price_fen: fenSchema('价格', 1),
  active: active.default(true),
  sort: SortSchema.optional(),
});
export type PriceInput = z.input<typeof PriceInputSchema>;

export const PriceUpdateSchema = PriceInputSchema.partial();
export type PriceUpdate = z.input<typeof PriceUpdateSchema>;

/** The price form: minutes and price as typed (price in yuan); parses to a `PriceInput`. */
export const PriceFormSchema = z.object({
  name: priceName,
  minutes: z
    .string('请输入时长')
    .trim()
    .regex(/^[0-9]{1,4}$/, MINUTES_MSG)
    .transform(Number)
    .pipe(minutes),
  price_fen: yuanTextSchema('价格', 1),
  active,
});

/** `PUT /backend/merchant/venues/:id/prices/order` and `/merchant/packages/order`: every id, in the new order. */
export const ReorderSchema = z.object({
  ids: z
    .array(BodyIdSchema, '请给出排序后的编号列表')
    .min(1, '请给出排序后的编号列表')
    .max(200, '一次最多排序 200 项')
    .refine((ids) => new Set(ids).size === ids.length, '编号不能重复'),
});
export type Reorder = z.input<typeof ReorderSchema>;

export interface VenuePrice {
  id: number;
  venue_id: number;
  name: string;
  minutes: number;
  price_fen: number;
  active: boolean;
  sort: number;
  /** Orders placed at this price (a price with orders can be deactivated, not deleted). */
  order_count: number;
  created_at: string;
}

/** The venue form (the admin's merchant is chosen outside it). */
export const VenueFormSchema = VenueInputSchema.omit({ merchant_id: true });
