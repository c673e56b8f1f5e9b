/** Money is integer fen everywhere; these are the only conversions, and they never use floats. */

export function isFen(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n);
}

/** 1234 -> "¥12.34", -50 -> "-¥0.50". */
export function formatFen(fen: number): string {
  if (!isFen(fen)) throw new TypeError(`not an amount in fen: ${fen}`);
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(fen);
  const yuan = Math.trunc(abs / 100);
  const cents = abs % 100;
  return `${sign}¥${yuan.toLocaleString('en-US')}.${cents.toString().padStart(2, '0')}`;
}

/** "12.3" -> 1230; "12" -> 1200; rejects more than two decimals, signs, exponents and junk (returns null). */
export function parseYuan(input: string): number | null {
  const m = /^\s*(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(input);
  if (!m) return null;
  const yuan = Number(m[1]);
  const cents = Number((m[2] ?? '').padEnd(2, '0'));
  return yuan * 100 + cents;
}

/** Floor of amount * numerator / denominator in integer arithmetic (shares, pro-rata refunds). */
export function proRata(amountFen: number, numerator: number, denominator: number): number {
  if (denominator <= 0) throw new RangeError('denominator must be positive');
  return Number((BigInt(amountFen) * BigInt(numerator)) / BigInt(denominator));
}

/** 1234 -> "12.34", -50 -> "-0.50": plain yuan with two decimals (CSV exports, no symbol or grouping). */
export function fenToYuan(fen: number): string {
  if (!isFen(fen)) throw new TypeError(`not an amount in fen: ${fen}`);
  const abs = Math.abs(fen);
  return `${fen < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${(abs % 100).toString().padStart(2, '0')}`;
}
