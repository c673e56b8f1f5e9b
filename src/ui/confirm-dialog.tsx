import { useModal } from './use-modal';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message?: string;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Styles the confirm button as destructive. */
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A daisyUI modal on the native <dialog>: confirm or cancel, Esc cancels. */
export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel = '确定',
  cancelLabel = '取消',
  danger = false,
  busy = false,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      className={`modal modal-bottom sm:modal-middle ${open ? 'modal-open' : ''}`}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      {open && (
        <div className="modal-box">
          <h3 id="confirm-title" className="text-lg font-bold">
            {title}
          </h3>
          {message && <p className="py-3 text-sm text-base-content/80">{message}</p>}
          <div className="modal-action">
            <button type="button" className="btn btn-ghost" onClick={onCancel} disabled={busy}>
              {cancelLabel}
            </button>
            <button
              type="button"
              className={`btn ${danger ? 'btn-error' : 'btn-primary'}`}
              onClick={onConfirm}
              disabled={busy}
            >
              {busy && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
              {confirmLabel}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
