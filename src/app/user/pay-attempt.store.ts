/**
 * Keeps the unfinished pay attempt of a device in sessionStorage (the edge of the pay machine), so a reload or the
 * trip through the WeChat cashier resumes it with the same Idempotency-Key instead of paying twice.
 */
import type { PayAttempt } from '../../machines/pay.types';

const keyOf = (deviceId: number) => `scango.pay-attempt.${deviceId}`;

function store(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function loadAttempt(deviceId: number): PayAttempt | null {
  try {
    const raw = store()?.getItem(keyOf(deviceId));
    const a = raw ? (JSON.parse(raw) as PayAttempt) : null;
    return a && typeof a.key === 'string' && a.device_id === deviceId ? a : null;
  } catch {
    return null;
  }
}

export function saveAttempt(attempt: PayAttempt): void {
  try {
    store()?.setItem(keyOf(attempt.device_id), JSON.stringify(attempt));
  } catch {
    // Private mode or quota: the attempt lives only in memory; a reload then starts a new attempt.
  }
}

export function clearAttempt(deviceId: number): void {
  try {
    store()?.removeItem(keyOf(deviceId));
  } catch {
    // Nothing stored.
  }
}
