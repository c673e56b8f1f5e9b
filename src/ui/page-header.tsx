import type { ReactNode } from 'react';

export interface PageHeaderProps {
  title: string;
  /** Shows a back arrow when given; called on tap. */
  onBack?: (() => void) | undefined;
  /** Optional content on the right (an action button). */
  action?: ReactNode;
}

/** The sticky page header: back arrow, centred title, optional action. */
export function PageHeader({ title, onBack, action }: PageHeaderProps) {
  return (
    <header className="navbar sticky top-0 z-10 min-h-12 bg-base-100 px-2 pt-[env(safe-area-inset-top)] shadow-sm">
      <div className="w-12 flex-none">
        {onBack && (
          <button
            type="button"
            className="btn btn-ghost btn-sm btn-square"
            aria-label="返回"
            onClick={onBack}
          >
            <svg
              viewBox="0 0 24 24"
              className="size-5"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              aria-hidden="true"
            >
              <path d="M15 18l-6-6 6-6" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
          </button>
        )}
      </div>
      <h1 className="flex-1 truncate text-center text-base font-semibold">{title}</h1>
      <div className="flex w-12 flex-none justify-end">{action}</div>
    </header>
  );
}
