/** Typed endpoints of `/backend/admin/products` (device models) over the one HTTP client. */
import type { Page } from '../domain/api';
import type { Product, ProductInput, ProductListQuery, ProductUpdate } from '../domain/products.schema';
import { http } from './client';
import { queryString as query } from './query-string';

export const productsApi = {
  list: (q: ProductListQuery = {}) => http.get<Page<Product>>(`/admin/products${query(q)}`),
  get: (id: number) => http.get<Product>(`/admin/products/${id}`),
  create: (body: ProductInput) => http.post<Product>('/admin/products', body),
  update: (id: number, body: ProductUpdate) => http.put<Product>(`/admin/products/${id}`, body),
  remove: (id: number) => http.delete<void>(`/admin/products/${id}`),
};
