import { useCallback, useState, type ReactNode } from 'react';
import { toOutcome } from '../../http/outcome';
import { Toast } from '../../ui';
import { MoveButtons } from './move-buttons';

export interface OrderedRowProps {
  name: string;
  active: boolean;
  /** The second line (amounts, counts). */
  detail: ReactNode;
  /** Position for 上移/下移; left out when the list cannot be reordered as shown. */
  order?: { index: number; count: number; onMove: (delta: -1 | 1) => void } | undefined;
  busy: boolean;
  onOpen: () => void;
  onToggle: (active: boolean) => void;
  onDelete: () => void;
  testId: string;
}

/**
 * A row of an ordered, switchable catalogue list (service prices, packages): move up/down, the name (opens the
 * edit sheet) with its detail, an 启用 switch, and 删除.
 */
export function OrderedRow(p: OrderedRowProps) {
  return (
    <div className="flex items-center gap-2 p-3" data-testid={p.testId}>
      {p.order && (
        <MoveButtons index={p.order.index} count={p.order.count} disabled={p.busy} onMove={p.order.onMove} />
      )}
      <button type="button" className="min-w-0 flex-1 text-left" onClick={p.onOpen}>
        <p className={`truncate font-medium ${p.active ? '' : 'text-base-content/50'}`}>
          {p.name}
          {!p.active && <span className="ml-2 text-xs">已停用</span>}
        </p>
        <p className="text-xs text-base-content/60">{p.detail}</p>
      </button>
      <input
        type="checkbox"
        className="toggle toggle-primary toggle-sm"
        aria-label={`${p.name} 启用`}
        checked={p.active}
        disabled={p.busy}
        onChange={(e) => p.onToggle(e.target.checked)}
      />
      <button
        type="button"
        className="btn btn-ghost btn-xs text-error"
        disabled={p.busy}
        onClick={p.onDelete}
      >
        删除
      </button>
    </div>
  );
}

type Notice = { message: string; kind: 'success' | 'error' };

/**
 * Runs one change of a list at a time (`busy` meanwhile), then says how it went in a toast and calls `after`
 * (reload). `toast` is the element to render; `notify` shows a message of the caller's.
 */
export function useListActions(after: () => void) {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  const run = async (call: () => Promise<unknown>, done: string) => {
    setBusy(true);
    const out = await toOutcome(call);
    setBusy(false);
    setNotice(out.ok ? { message: done, kind: 'success' } : { message: out.error.message, kind: 'error' });
    after();
  };
  const toast = notice && (
    <Toast message={notice.message} kind={notice.kind} onClose={() => setNotice(null)} />
  );
  const notify = useCallback((message: string) => setNotice({ message, kind: 'success' }), []);
  return { busy, run, toast, notify };
}
