import type { ReactNode } from 'react';
import { EmptyState, ErrorState, Loading } from '../states';

export interface PagedListProps<T> {
  items: T[];
  loading: boolean;
  error: { message: string } | null;
  hasMore: boolean;
  emptyTitle: string;
  emptyIcon?: string;
  /** Shown instead of the error when the member must sign in first. */
  signIn?: ReactNode;
  onRetry: () => void;
  onMore: () => void;
  render: (item: T) => ReactNode;
}

/** A list with its loading, empty and error states and a 加载更多 button. */
export function PagedList<T>(p: PagedListProps<T>) {
  if (p.signIn) return <>{p.signIn}</>;
  if (p.error && p.items.length === 0) return <ErrorState message={p.error.message} onRetry={p.onRetry} />;
  if (p.loading && p.items.length === 0) return <Loading />;
  if (p.items.length === 0) return <EmptyState title={p.emptyTitle} icon={p.emptyIcon ?? ''} />;
  return (
    <>
      <ul className="list rounded-box bg-base-100">{p.items.map(p.render)}</ul>
      {p.hasMore && (
        <button
          type="button"
          className="btn btn-ghost btn-block mt-2"
          disabled={p.loading}
          onClick={p.onMore}
        >
          {p.loading ? '加载中…' : '加载更多'}
        </button>
      )}
    </>
  );
}
