import { ConfirmDialog } from '../../ui';

/** 删除<what>？ with the row's name and why it may be refused; open while `item` is set. */
export function DeleteConfirm({
  what,
  item,
  refusedNote,
  onConfirm,
  onCancel,
}: {
  what: string;
  item: { name: string } | null;
  refusedNote: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      open={item !== null}
      danger
      title={`删除${what}？`}
      message={item ? `删除“${item.name}”后用户将不再看到它。${refusedNote}` : undefined}
      confirmLabel="删除"
      onConfirm={onConfirm}
      onCancel={onCancel}
    />
  );
}
