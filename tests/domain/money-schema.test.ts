/**
 * The yuan a person types in a price or package form becomes exact integer fen (never a float), with the same
 * bounds as the API; what a form shows for a stored amount reads back to the same fen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fenToYuanText, MAX_FEN, yuanTextSchema } from '../../src/domain/money.schema';

const price = yuanTextSchema('价格', 1);
const bonus = yuanTextSchema('赠送金额', 0);

describe('amounts typed in yuan', () => {
  it('reads back every stored amount exactly (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_FEN }), (fen) => {
        expect(price.parse(fenToYuanText(fen))).toBe(fen);
      }),
    );
    expect(bonus.parse(fenToYuanText(0))).toBe(0);
  });

  it('takes whole yuan, one or two decimals, and surrounding spaces', () => {
    expect(price.parse('3')).toBe(300);
    expect(price.parse(' 3.5 ')).toBe(350);
    expect(price.parse('0.01')).toBe(1);
    expect(price.parse('100000')).toBe(MAX_FEN);
  });

  it('refuses junk, three decimals, signs, zero price and amounts over the bound, with a message', () => {
    for (const text of ['', ' ', 'abc', '3.555', '-1', '+1', '1e3', '1,000', '¥3', '0x10']) {
      const r = price.safeParse(text);
      expect(r.success, text).toBe(false);
      expect(r.error!.issues[0]!.message).toMatch(/价格/);
    }
    expect(price.safeParse('0').error!.issues[0]!.message).toBe('价格必须大于 0');
    expect(price.safeParse('100000.01').error!.issues[0]!.message).toBe('价格最多 100000 元');
    expect(bonus.safeParse('0').success).toBe(true);
  });
});
