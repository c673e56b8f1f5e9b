import type { ReactNode } from 'react';
import { EmptyState, ErrorState, Loading } from './states';

export interface ResourceListProps<T> {
  items: T[] | undefined;
  total: number;
  page: number;
  pageSize: number;
  loading: boolean;
  error?: { message: string } | null;
  onRetry?: (() => void) | undefined;
  onPage: (page: number) => void;
  keyOf: (item: T) => string | number;
  renderItem: (item: T) => ReactNode;
  emptyTitle?: string;
  emptyDescription?: string;
  /** Above the list: search and filters. */
  toolbar?: ReactNode;
}

/**
 * A staff list: toolbar (search, filters), then loading, error with retry, empty, or the rows with paging. The
 * rows stay on screen while the next page loads.
 */
export function ResourceList<T>(p: ResourceListProps<T>) {
  const pages = Math.max(1, Math.ceil(p.total / p.pageSize));
  let body: ReactNode;
  if (p.error) body = <ErrorState message={p.error.message} onRetry={p.onRetry} />;
  else if (!p.items) body = <Loading />;
  else if (p.items.length === 0) body = <EmptyState title={p.emptyTitle} description={p.emptyDescription} />;
  else
    body = (
      <ul className="divide-y divide-base-200" aria-busy={p.loading}>
        {p.items.map((item) => (
          <li key={p.keyOf(item)}>{p.renderItem(item)}</li>
        ))}
      </ul>
    );
  return (
    <section className="m-4 rounded-box bg-base-100">
      {p.toolbar && <div className="space-y-2 border-b border-base-200 p-3">{p.toolbar}</div>}
      {body}
      {p.items && p.items.length > 0 && pages > 1 && (
        <nav className="flex items-center justify-between p-3 text-sm" aria-label="分页">
          <button
            type="button"
            className="btn btn-sm"
            disabled={p.page <= 1 || p.loading}
            onClick={() => p.onPage(p.page - 1)}
          >
            上一页
          </button>
          <span className="text-base-content/60">
            第 {p.page} / {pages} 页，共 {p.total} 条
          </span>
          <button
            type="button"
            className="btn btn-sm"
            disabled={p.page >= pages || p.loading}
            onClick={() => p.onPage(p.page + 1)}
          >
            下一页
          </button>
        </nav>
      )}
    </section>
  );
}
