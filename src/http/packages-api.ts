/** Typed endpoints of `/backend/merchant/packages` (recharge packages) over the one HTTP client. */
import type { Page } from '../domain/api';
import type { Package, PackageInput, PackageListQuery, PackageUpdate } from '../domain/packages.schema';
import { http } from './client';
import { queryString } from './query-string';

export const packagesApi = {
  list: (q: PackageListQuery = {}) => http.get<Page<Package>>(`/merchant/packages${queryString(q)}`),
  get: (id: number) => http.get<Package>(`/merchant/packages/${id}`),
  create: (body: PackageInput) => http.post<Package>('/merchant/packages', body),
  update: (id: number, body: PackageUpdate) => http.put<Package>(`/merchant/packages/${id}`, body),
  remove: (id: number) => http.delete<void>(`/merchant/packages/${id}`),
  /** Every package id of one merchant, in the new order. */
  order: (ids: number[]) => http.put<Page<Package>>('/merchant/packages/order', { ids }),
};
