/** Typed endpoints of the employee's floor: the cash desk, the live board, remote start and stop. */
import type { RechargePackage, ServicePrice } from '../domain/api';
import type {
  CashRechargeList,
  CashRechargeRequest,
  CashRechargeResponse,
  EmployeeMember,
} from '../domain/cash-recharge.schema';
import type { DeviceBoard, RemoteStartRequest, StaffSession } from '../domain/device-control.schema';
import { http } from './client';

const key = (k: string) => ({ headers: { 'Idempotency-Key': k } });

export const employeeApi = {
  member: (code: string) => http.get<EmployeeMember>(`/employee/member?code=${encodeURIComponent(code)}`),
  packages: () => http.get<{ items: RechargePackage[] }>('/employee/packages'),
  cashRecharge: (body: CashRechargeRequest, idempotencyKey: string) =>
    http.post<CashRechargeResponse>('/employee/cash-recharge', body, key(idempotencyKey)),
  todaysCashRecharges: () => http.get<CashRechargeList>('/employee/cash-recharges'),
  board: (venueId?: number) =>
    http.get<DeviceBoard>(`/employee/devices${venueId ? `?venue_id=${venueId}` : ''}`),
  prices: (venueId: number) =>
    http.get<{ items: ServicePrice[] }>(`/api/venue-service-prices?venue_id=${venueId}`),
  start: (deviceId: number, body: RemoteStartRequest, idempotencyKey: string) =>
    http.post<StaffSession>(`/merchant/devices/${deviceId}/start`, body, key(idempotencyKey)),
  startStatus: (orderNo: string) => http.get<StaffSession>(`/employee/starts/${orderNo}`),
  stop: (deviceId: number) => http.post<StaffSession>(`/merchant/devices/${deviceId}/stop`),
};
