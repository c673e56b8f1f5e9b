/**
 * A paged end-user list (`{ items, total, page, page_size }`, newest first) with 加载更多: pages are fetched
 * through the shell's request machine and appended.
 */
import { useEffect, useState } from 'react';
import { useRequest } from '../use-request';
import type { Page } from '../../domain/api';

export function usePaged<T>(fetchPage: (page: number) => Promise<Page<T>>) {
  const [page, setPage] = useState(1);
  const req = useRequest(fetchPage, page);
  const [items, setItems] = useState<T[]>([]);
  useEffect(() => {
    const data = req.data;
    if (!data) return;
    setItems((prev) => (data.page === 1 ? data.items : [...prev, ...data.items]));
  }, [req.data]);
  const total = req.data?.total ?? 0;
  return {
    items,
    total,
    loading: req.loading,
    error: req.error,
    retry: req.retry,
    hasMore: items.length < total,
    loadMore: () => setPage((p) => p + 1),
  };
}
