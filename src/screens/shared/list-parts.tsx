/**
 * Parts shared by the staff list screens: the toolbar (a search box, one select filter, 新增), a row that opens
 * its item and marks it 已停用 when off, and the 停用/启用 toggle.
 */
import type { ReactNode } from 'react';

/** A search box, one select filter (全部 first, then `options`) and 新增. */
export function SearchSelectToolbar<K extends string>({
  search,
  select,
  onAdd,
}: {
  search: { value: string; placeholder: string; label: string; onChange: (q: string) => void };
  select: { value: K | ''; label: string; options: Record<K, string>; onChange: (value: K | '') => void };
  onAdd: () => void;
}) {
  return (
    <div className="flex gap-2">
      <input
        type="search"
        className="input flex-1"
        placeholder={search.placeholder}
        aria-label={search.label}
        value={search.value}
        onChange={(e) => search.onChange(e.target.value)}
      />
      <select
        className="select w-24"
        aria-label={select.label}
        value={select.value}
        onChange={(e) => select.onChange(e.target.value as K | '')}
      >
        <option value="">全部</option>
        {Object.entries<string>(select.options).map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      <button type="button" className="btn btn-primary btn-sm" onClick={onAdd}>
        新增
      </button>
    </div>
  );
}

/** A row: the main part opens the item (its name, 已停用 when it is off, then `children`); `actions` on the right. */
export function StatusRow({
  testId,
  name,
  off,
  offClassName = 'text-base-content/50',
  onOpen,
  children,
  actions,
}: {
  testId: string;
  name: string;
  off: boolean;
  offClassName?: string;
  onOpen: () => void;
  children: ReactNode;
  actions: ReactNode;
}) {
  return (
    <div className="flex items-center gap-3 p-3" data-testid={testId}>
      <button type="button" className="min-w-0 flex-1 text-left" onClick={onOpen}>
        <p className="truncate font-medium">
          {name}
          {off && <span className={`ml-2 text-xs ${offClassName}`}>已停用</span>}
        </p>
        {children}
      </button>
      {actions}
    </div>
  );
}

/** 停用 while active (in red unless `quiet`), 启用 when off. */
export function StatusToggle({
  active,
  quiet = false,
  onClick,
}: {
  active: boolean;
  quiet?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`btn btn-ghost btn-sm ${active && !quiet ? 'text-error' : ''}`}
      onClick={onClick}
    >
      {active ? '停用' : '启用'}
    </button>
  );
}
