import { useCallback, useState } from 'react';

/**
 * The row being edited in a sheet (`'new'` for a new one, null when the sheet is closed) and the form's `onDone`:
 * closes the sheet and, after a save, says `savedMessage` and reloads.
 */
export function useEditing<T>(savedMessage: string, notify: (message: string) => void, reload: () => void) {
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        notify(savedMessage);
        reload();
      }
    },
    [savedMessage, notify, reload],
  );
  return { editing, setEditing, onFormDone };
}
