/**
 * Request and response shapes shared by the client and the server (docs/decisions.md D6).
 * Request schemas validate on the server and in the client forms; response types are what the screens read.
 * The end-user shapes are fixed for outside clients: fields may be added, never renamed.
 */
import { z } from 'zod';
import type { WechatRefundView } from './refunds.schema';

// ---------------------------------------------------------------- errors and lists

export const ApiErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** Largest id a PostgreSQL `integer` column holds. */
export const MAX_ID = 2_147_483_647;
const ID_MESSAGE = '必须是正整数编号';

/**
 * An id in a JSON body: a positive integer number and nothing else (`true`, `[1]`, `"1"`, `"0x1"`, `1.5` are
 * refused, docs/security.md).
 */
export const BodyIdSchema = z.number(ID_MESSAGE).int(ID_MESSAGE).positive(ID_MESSAGE).max(MAX_ID, ID_MESSAGE);

/** An id in a query string or path: decimal digits without a leading zero, read as a number. */
export const QueryIdSchema = z
  .string(ID_MESSAGE)
  .regex(/^[1-9][0-9]{0,9}$/, ID_MESSAGE)
  .transform(Number)
  .pipe(z.number().max(MAX_ID, ID_MESSAGE));
const id = BodyIdSchema;

/** What a text field holding an id becomes in a JSON body: a number for plain digits, else the text (refused). */
export function idFromText(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^[0-9]{1,10}$/.test(t) ? Number(t) : t;
}

// ---------------------------------------------------------------- staff auth

export const LoginRequestSchema = z.object({
  username: z.string().trim().min(1, '请输入用户名').max(64, '用户名过长'),
  password: z.string().min(1, '请输入密码').max(128, '密码过长'),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export interface StaffUser {
  id: number;
  name: string;
  role: 'admin' | 'merchant' | 'partner' | 'employee';
  level: number;
  merchant_id: number | null;
}

export interface LoginResponse {
  token: string;
  user: StaffUser;
}

/** `GET /backend/auth/me`: the account and the features its level may open (from the stored matrix). */
export interface MeResponse {
  user: StaffUser;
  features: string[];
}

// ---------------------------------------------------------------- public device pages

export const DEVICE_STATUSES = ['idle', 'running', 'offline', 'fault', 'disabled'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export interface PublicDevice {
  id: number;
  name: string;
  serial: string;
  status: DeviceStatus;
  online: boolean;
  venue_id: number;
  merchant_id: number;
  product: { id: number; name: string };
}

export interface PublicVenue {
  id: number;
  name: string;
  address: string;
  /**
   * `status` was added later (fields are only ever added): `disabled` when the platform stopped the merchant, whose
   * devices then take no new payments (docs/decisions.md D14). Absent means active.
   */
  merchant: { id: number; name: string; status?: 'active' | 'disabled' };
}

export interface ServicePrice {
  id: number;
  name: string;
  minutes: number;
  price_fen: number;
}

export interface OrderStatus {
  order_no: string;
  /** service: a free start by staff (no money). */
  kind: 'recharge' | 'consume' | 'service';
  status: 'pending' | 'paid' | 'started' | 'completed' | 'refunded' | 'closed' | 'failed';
  amount_fen: number;
}

// ---------------------------------------------------------------- end users

export interface MemberWallet {
  merchant_id: number;
  merchant_name: string;
  balance_fen: number;
  principal_fen: number;
  bonus_fen: number;
}

export interface UserProfile {
  /** `code`: the member code shown on /user/profile (docs/decisions.md D12). */
  member: { id: number; nickname: string; avatar_url: string; code: string };
  wallets: MemberWallet[];
}

/** An active recharge package as a member sees it (`GET /user/packages`) and the cash desk (`GET /employee/packages`). */
export interface RechargePackage {
  id: number;
  name: string;
  pay_fen: number;
  bonus_fen: number;
}

export const RechargeRequestSchema = z.object({
  merchant_id: id,
  package_id: id,
});
export type RechargeRequest = z.infer<typeof RechargeRequestSchema>;

export const PayRequestSchema = z.object({
  device_id: id,
  venue_id: id,
  price_id: id,
  method: z.enum(['wallet', 'wechat']),
});
export type PayRequest = z.infer<typeof PayRequestSchema>;

/** Parameters for `WeixinJSBridge.invoke('getBrandWCPayRequest', ...)` (or the sandbox cashier). */
export interface JsapiParams {
  appId: string;
  timeStamp: string;
  nonceStr: string;
  package: string;
  signType: 'RSA';
  paySign: string;
  /** Sandbox only: where the cashier page is, outside WeChat. */
  cashier_url?: string;
}

export interface OrderSummary {
  order_no: string;
  status: OrderStatus['status'];
  amount_fen: number;
}

export interface UsingSession {
  order_no: string;
  device_id: number;
  device_name: string;
  minutes: number;
  amount_fen: number;
  started_at: string | null;
  ends_at: string | null;
  status: 'starting' | 'running' | 'ended' | 'stopped' | 'failed';
}

export interface PayResponse {
  order: OrderSummary;
  session?: UsingSession;
  jsapi?: JsapiParams;
}

export interface RechargeResponse {
  order: OrderSummary;
  jsapi: JsapiParams;
}

export interface StopResponse extends UsingSession {
  refund_fen: number;
  /** Where the refund goes: the wallet at once, or back to WeChat (its state on /user/consumption-history). */
  refund_to: 'wallet' | 'wechat';
}

export interface RechargeHistoryItem {
  order_no: string;
  merchant_name: string;
  amount_fen: number;
  bonus_fen: number;
  method: 'wechat' | 'cash';
  status: OrderStatus['status'];
  created_at: string;
}

export interface ConsumptionHistoryItem {
  order_no: string;
  merchant_name: string;
  device_name: string;
  venue_name: string;
  minutes: number;
  amount_fen: number;
  refunded_fen: number;
  method: 'wallet' | 'wechat';
  status: OrderStatus['status'];
  created_at: string;
  /** The order's latest refund to WeChat (a WeChat pay), with its state; null otherwise. */
  wechat_refund: WechatRefundView | null;
}

export const FEEDBACK_CATEGORIES = {
  device: '设备故障',
  payment: '支付问题',
  refund: '退款问题',
  suggestion: '建议',
  other: '其他',
} as const;

export const FeedbackRequestSchema = z.object({
  category: z.enum(['device', 'payment', 'refund', 'suggestion', 'other']),
  content: z.string().trim().min(5, '请至少填写 5 个字').max(500, '最多 500 字'),
  device_id: id.optional(),
});
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

export interface FeedbackItem {
  id: number;
  category: keyof typeof FEEDBACK_CATEGORIES;
  content: string;
  device_id: number | null;
  device_name: string | null;
  reply: string | null;
  replied_at: string | null;
  created_at: string;
}

/** What the pay page needs before the user can choose; `profile` is null when there is no WeChat session yet. */
export interface PayPageData {
  device: PublicDevice;
  venue: PublicVenue;
  prices: ServicePrice[];
  profile: UserProfile | null;
}
