/** The 409s of a device that cannot take a pay now (offline, busy, fault, disabled). */
import { HttpError } from '../../lib/errors';
import { AVAILABILITY_MESSAGES, type Availability } from '../devices/sessions';

export const DEVICE_REFUSALS: Record<Exclude<Availability, 'ok'>, { status: 409; code: string }> = {
  offline: { status: 409, code: 'DEVICE_OFFLINE' },
  busy: { status: 409, code: 'DEVICE_BUSY' },
  fault: { status: 409, code: 'DEVICE_UNAVAILABLE' },
  disabled: { status: 409, code: 'DEVICE_UNAVAILABLE' },
};

export function deviceRefusal(a: Exclude<Availability, 'ok'>): HttpError {
  return new HttpError(DEVICE_REFUSALS[a].status, DEVICE_REFUSALS[a].code, AVAILABILITY_MESSAGES[a].message);
}
