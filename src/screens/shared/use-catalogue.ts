import { useState } from 'react';
import { moved } from './move-buttons';
import type { OrderedRowProps } from './ordered-row';
import { useListActions } from './ordered-row';
import { useEditing } from './use-editing';

/** The calls that change an ordered, switchable catalogue (a venue's prices, a merchant's packages). */
export interface CatalogueCalls {
  order: (ids: number[]) => Promise<unknown>;
  setActive: (id: number, active: boolean) => Promise<unknown>;
  remove: (id: number) => Promise<unknown>;
}

/**
 * One ordered catalogue list: the row being edited in a sheet, the row waiting for its delete confirmation, one
 * change at a time with a toast, and each row's actions (move up/down, switch, open, delete). `offMessage` is the
 * toast after switching a row off; `savedMessage` after a save in the sheet.
 */
export function useCatalogue<T extends { id: number }>(
  calls: CatalogueCalls,
  reload: () => void,
  messages: { saved: string; off: string },
) {
  const { busy, run, toast, notify } = useListActions(reload);
  const { editing, setEditing, onFormDone } = useEditing<T>(messages.saved, notify, reload);
  const [deleting, setDeleting] = useState<T | null>(null);
  /** `ids` in the order shown; without `canOrder` the row has no 上移/下移. */
  const rowActions = (item: T, ids: number[], canOrder = true) => {
    const index = ids.indexOf(item.id);
    return {
      order: canOrder
        ? {
            index,
            count: ids.length,
            onMove: (d: -1 | 1) => void run(() => calls.order(moved(ids, index, d)), '顺序已更新'),
          }
        : undefined,
      busy,
      onOpen: () => setEditing(item),
      onToggle: (active: boolean) =>
        void run(() => calls.setActive(item.id, active), active ? '已启用' : messages.off),
      onDelete: () => setDeleting(item),
    } satisfies Partial<OrderedRowProps>;
  };
  const deleteProps = {
    onConfirm: () => {
      const item = deleting!;
      setDeleting(null);
      void run(() => calls.remove(item.id), '已删除');
    },
    onCancel: () => setDeleting(null),
  };
  return { editing, setEditing, onFormDone, deleting, deleteProps, rowActions, toast };
}
