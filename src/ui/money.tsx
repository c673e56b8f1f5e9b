import { formatFen } from '../domain/money';

export interface MoneyProps {
  fen: number;
  className?: string;
}

/** An amount in fen shown as CNY (`formatFen`), tabular digits so columns line up. */
export function Money({ fen, className = '' }: MoneyProps) {
  return <span className={`tabular-nums ${className}`}>{formatFen(fen)}</span>;
}
