import { useRef } from 'react';

/**
 * The last defined value: a list keeps its rows on screen while it reloads after a change (the request machine
 * clears its data while loading), instead of flashing a spinner.
 */
export function useLast<T>(value: T | undefined): T | undefined {
  const last = useRef(value);
  if (value !== undefined) last.current = value;
  return last.current;
}
