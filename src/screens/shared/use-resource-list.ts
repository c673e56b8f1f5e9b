import { useState } from 'react';
import { useRequest } from '../../app/use-request';
import { useLast } from './use-last';

/** A staff list's search, filters and page, in one state object. */
export type ListFilter = { page: number } & Record<string, unknown>;

/**
 * One staff list: its filter state (search, filters, page), the request (refetched when the filter changes) and
 * the paging props `ResourceList` takes. `toParams` turns the filter into the query (e.g. `''` to `undefined`;
 * by default the filter is the query);
 * `refilter` changes filters and goes back to page 1.
 */
export function useResourceList<F extends ListFilter, P, R extends { items: unknown[]; total: number }>(
  fetcher: (params: P) => Promise<R>,
  initial: F,
  pageSize: number,
  toParams: (filter: F & { page_size: number }) => P = (f) => f as unknown as P,
  /** Keep the rows on screen while the list reloads after a change (`useLast`) instead of a spinner. */
  keepRows = false,
) {
  const [filter, setFilter] = useState<F>(initial);
  const list = useRequest(fetcher, toParams({ ...filter, page_size: pageSize }));
  const last = useLast(list.data);
  const data = keepRows ? last : list.data;
  const refilter = (change: Partial<F>) => setFilter({ ...filter, ...change, page: 1 });
  const listProps = {
    items: data?.items as R['items'] | undefined,
    total: data?.total ?? 0,
    page: filter.page,
    pageSize,
    loading: list.loading,
    error: list.error,
    onRetry: list.canRetry ? list.retry : undefined,
    onPage: (page: number) => setFilter({ ...filter, page }),
  };
  return { filter, setFilter, refilter, list, data, listProps };
}
