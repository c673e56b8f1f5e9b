/**
 * Money and count fields of the catalogue forms and bodies, shared by the server's validation and the staff forms.
 * The API takes integer fen; a form holds the yuan the person typed and turns it into fen with the same bounds, so
 * the field is named like the body field (`price_fen`) and the server's `details` land on it.
 */
import { z } from 'zod';
import { parseYuan } from './money';

/** Upper bound of one price or package: ¥100,000 (a typo guard, far above any real tier). */
export const MAX_FEN = 10_000_000;

/** Integer fen in a JSON body, from `min` to MAX_FEN. */
export function fenSchema(label: string, min: number) {
  const msg = `${label}必须是 ${min === 0 ? '0' : '0.01'} 到 100000 元之间的金额（以分为单位的整数）`;
  return z.number(msg).int(msg).min(min, msg).max(MAX_FEN, msg);
}

/** The text a person types in yuan ("12", "12.5", "12.50"), turned into fen with the bounds of `fenSchema`. */
export function yuanTextSchema(label: string, min: number) {
  return z
    .string(`请输入${label}`)
    .trim()
    .min(1, `请输入${label}`)
    .transform((text, ctx) => {
      const fen = parseYuan(text);
      if (fen === null) {
        ctx.addIssue({ code: 'custom', message: `${label}格式不对，例如 3.50（最多两位小数）` });
        return z.NEVER;
      }
      return fen;
    })
    .pipe(
      z
        .number()
        .min(min, min === 0 ? `${label}不能为负` : `${label}必须大于 0`)
        .max(MAX_FEN, `${label}最多 100000 元`),
    );
}

/** fen as the yuan text a form shows: 350 → "3.50", 0 → "0". */
export function fenToYuanText(fen: number): string {
  if (fen === 0) return '0';
  return `${Math.trunc(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}

/** A sort position: 0..100000. */
export const SortSchema = z
  .number('排序必须是整数')
  .int('排序必须是整数')
  .min(0, '排序为 0 到 100000')
  .max(100_000, '排序为 0 到 100000');
