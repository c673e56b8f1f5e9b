/**
 * Staff device control: remote start (cash or free service), stop, and the live board
 * (`/employee/remote-start`, `/employee/device-charging`). Shared by the server's validation and the screens.
 */
import { z } from 'zod';
import { BodyIdSchema, QueryIdSchema, type PublicDevice } from './api';

export const START_MODES = { cash: '现金收款', service: '免费服务' } as const;
export type StartMode = keyof typeof START_MODES;

/** `POST /backend/merchant/devices/:id/start`: a service start needs its reason. */
export const RemoteStartRequestSchema = z
  .object({
    price_id: BodyIdSchema,
    mode: z.enum(['cash', 'service'], '请选择现金收款或免费服务'),
    reason: z.string('原因必须是文字').trim().max(200, '原因最多 200 字').optional(),
  })
  .superRefine((v, ctx) => {
    if (v.mode === 'service' && !v.reason) {
      ctx.addIssue({ code: 'custom', path: ['reason'], message: '免费服务请填写原因' });
    }
  });
export type RemoteStartRequest = z.input<typeof RemoteStartRequestSchema>;

/** `GET /backend/employee/devices?venue_id=` (`merchant_id`: the platform admin's filter). */
export const BoardQuerySchema = z.object({
  venue_id: QueryIdSchema.optional(),
  merchant_id: QueryIdSchema.optional(),
});

export interface BoardSession {
  order_no: string;
  /** null while the device has not acknowledged yet. */
  ends_at: string | null;
  minutes_left: number;
  status: 'starting' | 'running';
  started_at: string | null;
  minutes: number;
  method: 'wallet' | 'wechat' | 'cash' | 'free';
  amount_fen: number;
}

/** A device on the board: what the public device page shows of it, with its venue's name and running session. */
export interface BoardDevice extends Pick<
  PublicDevice,
  'id' | 'name' | 'serial' | 'status' | 'online' | 'venue_id'
> {
  venue_name: string;
  session?: BoardSession;
}

export interface DeviceBoard {
  items: BoardDevice[];
  /** The venues of the merchant (to pick from), whatever the filter. */
  venues: { id: number; name: string }[];
  /** Server time of the answer: the screen counts down from it, not from the phone's clock. */
  now: string;
}

/** The answer of start, stop and the start's status: the session and its order. */
export interface StaffSession {
  order_no: string;
  kind: 'consume' | 'service';
  method: 'cash' | 'free' | 'wallet' | 'wechat';
  order_status: 'paid' | 'started' | 'completed' | 'refunded' | 'failed' | 'pending' | 'closed';
  amount_fen: number;
  refunded_fen: number;
  device_id: number;
  device_name: string;
  minutes: number;
  status: 'starting' | 'running' | 'ended' | 'stopped' | 'failed';
  started_at: string | null;
  ends_at: string | null;
  /** What this stop refunded (stop only), and where to: `wechat` goes back to the member's WeChat (on its way). */
  refund_fen: number;
  refund_to: 'wallet' | 'wechat' | 'cash' | 'none';
  failure_reason: string | null;
}
