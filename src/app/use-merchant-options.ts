/**
 * The merchants an admin's merchant filter offers (venues, devices, packages, reports): asked only when the signed-in
 * account is the platform admin (from `GET /backend/auth/me`, not from stored hints), as
 * `GET /backend/admin/merchants?page_size=100`. `options` is null for every other level: those screens show no
 * filter, since their rows are their own merchant's already.
 */
import type { Merchant } from '../domain/merchants.schema';
import { merchantsApi } from '../http/merchants-api';
import { loadMe } from './staff-features';
import { useRequest } from './use-request';

async function merchantOptions(): Promise<Merchant[] | null> {
  const me = await loadMe();
  if (me.user.level !== 1) return null;
  return (await merchantsApi.options()).items;
}

export function useMerchantOptions() {
  const r = useRequest(merchantOptions);
  return {
    /** The merchants to choose from; null when the account is not the admin (no filter), undefined while loading. */
    options: r.data,
    loading: r.loading,
    error: r.error,
    retry: r.retry,
  };
}
