/**
 * Devices (`/merchant/devices`): the shapes the API serves and accepts, shared by the server's validation and the
 * screen's forms (docs/adding-a-resource.md). A device is paid for at its pay link
 * `PUBLIC_URL/user/pay?device_id=&venue_id=`, printed as a QR label; moving it to another venue changes the link.
 */
import { z } from 'zod';
import { BodyIdSchema, PageQuerySchema, QueryIdSchema } from './api';

export const DEVICE_STATUSES = {
  idle: '空闲',
  running: '运行中',
  offline: '离线',
  fault: '故障',
  disabled: '已停用',
} as const;
export type DeviceStatus = keyof typeof DEVICE_STATUSES;
const STATUS_KEYS = Object.keys(DEVICE_STATUSES) as [DeviceStatus, ...DeviceStatus[]];

/** Most devices one batch may add (a label sheet holds 12; a venue rarely gets more than a few dozen at once). */
export const MAX_BATCH = 200;

const name = z.string('请输入设备名称').trim().min(1, '请输入设备名称').max(64, '设备名称最多 64 个字');
/** A factory serial as printed on the device: letters, digits and dashes. */
const serial = z
  .string('序列号必须是文字')
  .trim()
  .min(3, '序列号至少 3 位')
  .max(32, '序列号最多 32 位')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, '序列号只能包含字母、数字、- 和 _');

/**
 * POST body: one device (`name`, optional `serial`; generated when absent), or a batch (`count` and
 * `name_prefix`: names `<prefix><start>`, `<prefix><start+1>`, ...; serials always generated).
 */
export const DeviceCreateSchema = z
  .object({
    venue_id: BodyIdSchema,
    product_id: BodyIdSchema,
    name: name.optional(),
    serial: serial.optional(),
    count: z
      .number('数量必须是整数')
      .int('数量必须是整数')
      .min(1, '数量至少 1 台')
      .max(MAX_BATCH, `一次最多添加 ${MAX_BATCH} 台`)
      .optional(),
    // A trailing space is kept on purpose: 「按摩椅 」 numbers as 「按摩椅 1」.
    name_prefix: z
      .string('请输入名称前缀')
      .max(48, '名称前缀最多 48 个字')
      .refine((s) => s.trim() !== '', '请输入名称前缀')
      .transform((s) => s.trimStart())
      .optional(),
    start: z.number('起始编号必须是整数').int('起始编号必须是整数').min(1).max(99_999).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.count === undefined) {
      if (v.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: '请输入设备名称' });
      return;
    }
    if (v.name_prefix === undefined)
      ctx.addIssue({ code: 'custom', path: ['name_prefix'], message: '请输入名称前缀' });
    if (v.name !== undefined)
      ctx.addIssue({ code: 'custom', path: ['name'], message: '批量添加时用名称前缀，不填单个名称' });
    if (v.serial !== undefined)
      ctx.addIssue({ code: 'custom', path: ['serial'], message: '批量添加时序列号自动生成' });
  });
export type DeviceCreate = z.input<typeof DeviceCreateSchema>;

/** PUT body: rename, change model, move (venue_id), disable or enable. */
export const DeviceUpdateSchema = z
  .object({
    name: name.optional(),
    product_id: BodyIdSchema.optional(),
    venue_id: BodyIdSchema.optional(),
    status: z.enum(['disabled', 'enabled'], '状态只能是 disabled 或 enabled').optional(),
  })
  .strict();
export type DeviceUpdate = z.input<typeof DeviceUpdateSchema>;

const flag = z.enum(['true', 'false'], '只能是 true 或 false').transform((v) => v === 'true');

/** `GET /backend/merchant/devices?page=&page_size=&q=&venue_id=&product_id=&status=&online=&merchant_id=` */
export const DeviceListQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  venue_id: QueryIdSchema.optional(),
  product_id: QueryIdSchema.optional(),
  merchant_id: QueryIdSchema.optional(),
  status: z.enum(STATUS_KEYS, '状态不正确').optional(),
  online: flag.optional(),
});
export type DeviceListQuery = z.input<typeof DeviceListQuerySchema>;

/** `GET /backend/merchant/devices/options?merchant_id=`: what the forms and filters choose from. */
export const DeviceOptionsQuerySchema = z.object({ merchant_id: QueryIdSchema.optional() });
export interface DeviceOptions {
  venues: { id: number; name: string; merchant_id: number }[];
  products: { id: number; name: string; status: 'active' | 'retired' }[];
}

/** What runs on the device now. */
export interface DeviceSessionNow {
  order_no: string;
  status: 'starting' | 'running';
  /** Null while the device has not acknowledged the start. */
  ends_at: string | null;
  minutes_left: number | null;
}

export interface Device {
  id: number;
  name: string;
  serial: string;
  status: DeviceStatus;
  online: boolean;
  merchant_id: number;
  /** The merchant's name (the admin's list names each row's merchant). */
  merchant_name: string;
  venue_id: number;
  venue_name: string;
  product_id: number;
  product_name: string;
  /** The link its QR label carries: `PUBLIC_URL/user/pay?device_id=&venue_id=`. */
  pay_url: string;
  last_heartbeat_at: string | null;
  session: DeviceSessionNow | null;
  created_at: string;
}

/** POST answers the devices it added (one for a single add). */
export interface DevicesCreated {
  items: Device[];
}
