/**
 * The features the signed-in level may open, from `GET /backend/auth/me` (the stored permission matrix), asked
 * once per token and shared by the dashboard tiles and the per-screen permission check.
 */
import type { MeResponse } from '../domain/api';
import { httpConfig } from '../http/client';
import { readToken } from '../http/session-storage';
import { staffApi } from '../http/staff-api';

let cached: { token: string | null; promise: Promise<MeResponse> } | null = null;

export function loadMe(): Promise<MeResponse> {
  const token = readToken(httpConfig().stores);
  if (!cached || cached.token !== token) {
    const promise = staffApi.me();
    cached = { token, promise };
    // A failed answer is not kept: the next screen asks again.
    promise.catch(() => {
      if (cached?.promise === promise) cached = null;
    });
  }
  return cached.promise;
}

export function forgetMe(): void {
  cached = null;
}
