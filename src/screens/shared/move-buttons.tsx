/** The ids with the one at `index` moved by `delta` places (-1 up, +1 down); the same list when it cannot move. */
export function moved(ids: number[], index: number, delta: -1 | 1): number[] {
  const to = index + delta;
  if (index < 0 || to < 0 || to >= ids.length) return ids;
  const next = [...ids];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** 上移 / 下移 for a row of an ordered list (the first cannot go up, the last cannot go down). */
export function MoveButtons({
  index,
  count,
  disabled,
  onMove,
}: {
  index: number;
  count: number;
  disabled?: boolean;
  onMove: (delta: -1 | 1) => void;
}) {
  return (
    <span className="join">
      <button
        type="button"
        className="btn join-item btn-ghost btn-xs"
        aria-label="上移"
        disabled={disabled || index === 0}
        onClick={() => onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="btn join-item btn-ghost btn-xs"
        aria-label="下移"
        disabled={disabled || index === count - 1}
        onClick={() => onMove(1)}
      >
        ↓
      </button>
    </span>
  );
}
