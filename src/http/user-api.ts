/**
 * Typed end-user endpoints (docs/decisions.md D6) over the one HTTP client: the public device pages under
 * `/api/` and the member's own data under `/user/` (cookie session; a 401 comes back as `WECHAT_AUTH_REQUIRED`).
 * `toOutcome` turns an expected failure into a value for the machines (docs/decisions.md D11).
 */
import type {
  ConsumptionHistoryItem,
  FeedbackItem,
  FeedbackRequest,
  OrderStatus,
  Page,
  PayPageData,
  PayRequest,
  PayResponse,
  PublicDevice,
  PublicVenue,
  RechargeHistoryItem,
  RechargePackage,
  RechargeRequest,
  RechargeResponse,
  ServicePrice,
  StopResponse,
  UserProfile,
  UsingSession,
} from '../domain/api';
import type { Outcome } from '../domain/outcome';
import { WECHAT_AUTH_REQUIRED, http } from './client';
import { toOutcome } from './outcome';

/** Expected failures as values: the one mapper of `./outcome`. */
export { toOutcome };

const q = (params: Record<string, string | number | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
};

const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });

export const userApi = {
  device: (id: number) => http.get<PublicDevice>(`/api/devices/${id}`),
  venue: (id: number) => http.get<PublicVenue>(`/api/venues/${id}`),
  prices: (venueId: number) =>
    http.get<{ items: ServicePrice[] }>(`/api/venue-service-prices${q({ venue_id: venueId })}`),
  query: (orderNo: string) => http.get<OrderStatus>(`/api/query${q({ order_no: orderNo })}`),

  profile: (merchantId?: number) => http.get<UserProfile>(`/user/profile${q({ merchant_id: merchantId })}`),
  packages: (merchantId: number) =>
    http.get<{ items: RechargePackage[] }>(`/user/packages${q({ merchant_id: merchantId })}`),
  /** `return_path` is where the sandbox cashier sends the browser back (a same-origin path). */
  recharge: (body: RechargeRequest & { return_path?: string }, key: string) =>
    http.post<RechargeResponse>('/user/recharge', body, idem(key)),
  pay: (body: PayRequest & { return_path?: string }, key: string) =>
    http.post<PayResponse>('/user/pay', body, idem(key)),
  /** `server_time` lets the countdown run on the server's clock rather than the phone's. */
  using: () => http.get<{ items: UsingSession[]; server_time?: string }>('/user/using'),
  stop: (orderNo: string) => http.post<StopResponse>(`/user/using/${encodeURIComponent(orderNo)}/stop`),
  rechargeHistory: (page: number, pageSize = 20) =>
    http.get<Page<RechargeHistoryItem>>(`/user/recharge-history${q({ page, page_size: pageSize })}`),
  consumptionHistory: (page: number, pageSize = 20) =>
    http.get<Page<ConsumptionHistoryItem>>(`/user/consumption-history${q({ page, page_size: pageSize })}`),
  feedback: (page: number, pageSize = 20) =>
    http.get<Page<FeedbackItem>>(`/user/feedback${q({ page, page_size: pageSize })}`),
  sendFeedback: (body: FeedbackRequest) => http.post<FeedbackItem>('/user/feedback', body),
};

/**
 * What `/user/pay` needs, all at once: the public device, venue and prices, and the member's profile (null when
 * there is no WeChat session yet, so the device still shows and the page offers 微信登录).
 */
const DEVICE_MOVED = {
  status: 409,
  code: 'DEVICE_MOVED',
  message: '设备已移至其他场地，此二维码已失效，请扫描设备上的新二维码',
};

export async function loadPayPage(deviceId: number, venueId: number): Promise<Outcome<PayPageData>> {
  const profile = toOutcome(() => userApi.profile());
  const [device, venue, prices, me] = await Promise.all([
    toOutcome(() => userApi.device(deviceId)),
    toOutcome(() => userApi.venue(venueId)),
    toOutcome(() => userApi.prices(venueId)),
    profile,
  ]);
  // An old label of a moved device: the link's venue is no longer the device's (its new label has the new one).
  if (device.ok && device.value.venue_id !== venueId) return { ok: false, error: DEVICE_MOVED };
  for (const o of [device, venue, prices]) if (!o.ok) return o;
  if (!me.ok && me.error.code !== WECHAT_AUTH_REQUIRED) return me;
  if (!device.ok || !venue.ok || !prices.ok) throw new Error('unreachable');
  return {
    ok: true,
    value: {
      device: device.value,
      venue: venue.value,
      prices: prices.value.items,
      profile: me.ok ? me.value : null,
    },
  };
}
