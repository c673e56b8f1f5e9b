import type { ReactNode } from 'react';
import { Icon } from './icons';

export interface LoadingProps {
  /** Read by screen readers and shown under the spinner. */
  label?: string;
}

/** A centred spinner used wherever data is on its way. */
export function Loading({ label = '加载中…' }: LoadingProps) {
  return (
    <div
      className="flex flex-col items-center justify-center gap-2 py-16 text-base-content/60"
      role="status"
      aria-live="polite"
    >
      <span className="loading loading-spinner loading-md" aria-hidden="true" />
      <span className="text-sm">{label}</span>
    </div>
  );
}

export interface EmptyStateProps {
  title?: string;
  description?: ReactNode;
  /** A short glyph shown instead of the default inbox icon. */
  icon?: string;
  children?: ReactNode;
}

/** Nothing to show yet: an honest statement, never made-up figures. */
export function EmptyState({ title = '暂无数据', description, icon, children }: EmptyStateProps) {
  return (
    <div
      className="flex flex-col items-center justify-center gap-2 px-6 py-14 text-center"
      data-testid="empty-state"
    >
      {icon ? (
        <span className="text-4xl" aria-hidden="true">
          {icon}
        </span>
      ) : (
        <span className="text-base-content/30">
          <Icon name="inbox" className="size-12" />
        </span>
      )}
      <p className="font-medium">{title}</p>
      {description && <p className="text-sm text-base-content/60">{description}</p>}
      {children}
    </div>
  );
}

export interface ErrorStateProps {
  message: string;
  title?: string;
  onRetry?: (() => void) | undefined;
  retryLabel?: string;
}

/** A failed load with the reason and a retry button. */
export function ErrorState({ message, title = '加载失败', onRetry, retryLabel = '重试' }: ErrorStateProps) {
  return (
    <div className="flex flex-col items-center gap-3 px-6 py-14 text-center" role="alert">
      <span className="text-warning">
        <Icon name="alert" className="size-12" />
      </span>
      <p className="font-medium">{title}</p>
      <p className="text-sm text-base-content/70">{message}</p>
      {onRetry && (
        <button type="button" className="btn btn-primary btn-sm" onClick={onRetry}>
          {retryLabel}
        </button>
      )}
    </div>
  );
}

export interface NoPermissionProps {
  title?: string;
  description?: string;
  children?: ReactNode;
}

/** The level lacks the feature: say so plainly (the server refuses the data anyway). */
export function NoPermission({
  title = '无权限访问',
  description = '当前账号的级别无权使用此功能，如需开通请联系平台管理员。',
  children,
}: NoPermissionProps) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-14 text-center" data-testid="no-permission">
      <span className="text-base-content/30">
        <Icon name="lock" className="size-12" />
      </span>
      <p className="font-medium">{title}</p>
      <p className="text-sm text-base-content/60">{description}</p>
      {children}
    </div>
  );
}
