/** Typed endpoints of `/backend/admin/merchants` (platform admin) over the one HTTP client. */
import type { Page } from '../domain/api';
import type { Merchant, MerchantCreate, MerchantListQuery, MerchantUpdate } from '../domain/merchants.schema';
import { http } from './client';
import { queryString as query } from './query-string';

/** The most merchants one list answer holds: the admin's merchant filters ask for this page size. */
export const MERCHANT_FILTER_PAGE_SIZE = 100;

export const merchantsApi = {
  list: (q: MerchantListQuery = {}) => http.get<Page<Merchant>>(`/admin/merchants${query(q)}`),
  /** Every merchant's id and name for a merchant filter (the first 100; an admin-only call). */
  options: () => http.get<Page<Merchant>>(`/admin/merchants?page_size=${MERCHANT_FILTER_PAGE_SIZE}`),
  get: (id: number) => http.get<Merchant>(`/admin/merchants/${id}`),
  create: (body: MerchantCreate) => http.post<Merchant>('/admin/merchants', body),
  update: (id: number, body: MerchantUpdate) => http.put<Merchant>(`/admin/merchants/${id}`, body),
};
