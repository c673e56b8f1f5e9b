import type { ReactNode } from 'react';
import { useModal } from './use-modal';

export interface SheetProps {
  open: boolean;
  title: string;
  /** Esc or the backdrop asks to close (the owner decides, e.g. after a dirty-leave warning). */
  onClose: () => void;
  children: ReactNode;
}

/** A bottom sheet on the native <dialog> for a form over a list. */
export function Sheet({ open, title, onClose, children }: SheetProps) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      className={`modal modal-bottom sm:modal-middle ${open ? 'modal-open' : ''}`}
      aria-label={title}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <div className="modal-box max-h-[90dvh]">
          <h3 className="mb-3 text-lg font-bold">{title}</h3>
          {children}
        </div>
      )}
    </dialog>
  );
}
