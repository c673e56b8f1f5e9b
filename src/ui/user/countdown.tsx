import { useEffect, useState } from 'react';

export interface CountdownProps {
  /** ISO time the session ends. */
  endsAt: string;
  /** Server clock minus phone clock, in ms (phones' clocks are often off). */
  skewMs?: number;
  /** Called once when the time is up (the owner refreshes the list). */
  onElapsed?: () => void;
}

/** Milliseconds left as `mm:ss` (hours folded into minutes), never negative. */
export function formatLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** A live countdown to `endsAt`, ticking every second. */
export function Countdown({ endsAt, skewMs = 0, onElapsed }: CountdownProps) {
  const end = Date.parse(endsAt);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = end - (now + skewMs);
  useEffect(() => {
    if (left <= 0 && onElapsed) onElapsed();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- fire once when it crosses zero
  }, [left <= 0]);
  return (
    <span className="text-4xl font-semibold tabular-nums" data-testid="countdown" aria-live="off">
      {formatLeft(left)}
    </span>
  );
}
