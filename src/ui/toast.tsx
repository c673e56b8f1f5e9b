import { useEffect } from 'react';

export interface ToastProps {
  /** Nothing is shown while null. */
  message: string | null;
  kind?: 'info' | 'success' | 'error';
  /** Called after `durationMs`; the owner clears the message. */
  onClose?: () => void;
  durationMs?: number;
}

const KIND_CLASS = { info: 'alert-info', success: 'alert-success', error: 'alert-error' } as const;

/** A short message above the tab bar that closes itself. */
export function Toast({ message, kind = 'info', onClose, durationMs = 2500 }: ToastProps) {
  useEffect(() => {
    if (!message || !onClose) return;
    const t = setTimeout(onClose, durationMs);
    return () => clearTimeout(t);
  }, [message, onClose, durationMs]);
  if (!message) return null;
  return (
    <div className="toast toast-center toast-top z-50 pt-[env(safe-area-inset-top)]">
      <div role={kind === 'error' ? 'alert' : 'status'} className={`alert ${KIND_CLASS[kind]} text-sm`}>
        <span>{message}</span>
      </div>
    </div>
  );
}
