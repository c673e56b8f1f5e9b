/** Typed endpoints of `/backend/merchant/devices` over the one HTTP client. */
import type { Page } from '../domain/api';
import type {
  Device,
  DeviceCreate,
  DeviceListQuery,
  DeviceOptions,
  DevicesCreated,
  DeviceUpdate,
} from '../domain/devices.schema';
import type { DeviceCredentials, DeviceSecretIssued } from '../domain/device-secret.schema';
import { http } from './client';
import { queryString } from './query-string';

export const devicesApi = {
  list: (q: DeviceListQuery = {}) => http.get<Page<Device>>(`/merchant/devices${queryString(q)}`),
  options: (merchantId?: number) =>
    http.get<DeviceOptions>(`/merchant/devices/options${merchantId ? `?merchant_id=${merchantId}` : ''}`),
  get: (id: number) => http.get<Device>(`/merchant/devices/${id}`),
  /** One device (answers the device) or, with `count`, a batch (answers `{ items }`). */
  create: (body: DeviceCreate) => http.post<Device | DevicesCreated>('/merchant/devices', body),
  update: (id: number, body: DeviceUpdate) => http.put<Device>(`/merchant/devices/${id}`, body),
  /** The device's MQTT username and broker; never the secret. */
  credentials: (id: number) => http.get<DeviceCredentials>(`/merchant/devices/${id}/credentials`),
  /** A new secret, answered this once; the old one stops working at once. */
  rotateSecret: (id: number) => http.post<DeviceSecretIssued>(`/merchant/devices/${id}/secret`, {}),
};
