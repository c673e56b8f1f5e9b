/** Typed staff endpoints used by the shell's screens (docs/decisions.md D6). */
import type { LoginRequest, LoginResponse, MeResponse } from '../domain/api';
import type { DashboardSummary } from '../domain/dashboard';
import type { PermissionsMatrix, PermissionsUpdate } from '../domain/permissions.schema';
import { http } from './client';

export const staffApi = {
  login: (body: LoginRequest) => http.post<LoginResponse>('/auth/login', body),
  me: () => http.get<MeResponse>('/auth/me'),
  logout: () => http.post<{ ok: boolean }>('/auth/logout'),
  dashboard: () => http.get<DashboardSummary>('/dashboard'),
  permissions: () => http.get<PermissionsMatrix>('/admin/permissions'),
  savePermissions: (body: PermissionsUpdate) => http.put<PermissionsMatrix>('/admin/permissions', body),
};
