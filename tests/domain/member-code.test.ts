import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDigit,
  isValidMemberCode,
  MemberCodeSchema,
  memberCodeFrom,
} from '../../src/domain/member-code';

const body = fc
  .tuple(
    fc.integer({ min: 1, max: 9 }),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 6 }),
  )
  .map(([first, rest]) => [first, ...rest].join(''));
const code = body.map((b) => b + checkDigit(b));

describe('member code check digit (Damm)', () => {
  it('every generated code is valid, 8 digits, never starting with 0', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 7, maxLength: 7 }), (draws) => {
        let i = 0;
        const c = memberCodeFrom((n) => draws[i++]! % n);
        expect(c).toMatch(/^[1-9]\d{7}$/);
        expect(isValidMemberCode(c)).toBe(true);
      }),
    );
  });

  it('rejects every single-digit error', () => {
    fc.assert(
      fc.property(code, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 9 }), (c, pos, delta) => {
        const d = (Number(c[pos]) + delta) % 10;
        const wrong = c.slice(0, pos) + String(d) + c.slice(pos + 1);
        expect(wrong).not.toBe(c);
        expect(isValidMemberCode(wrong)).toBe(false);
      }),
    );
  });

  it('rejects every swap of two adjacent different digits', () => {
    fc.assert(
      fc.property(code, fc.integer({ min: 0, max: 6 }), (c, pos) => {
        fc.pre(c[pos] !== c[pos + 1]);
        const swapped = c.slice(0, pos) + c[pos + 1] + c[pos] + c.slice(pos + 2);
        expect(isValidMemberCode(swapped)).toBe(false);
      }),
    );
  });

  it('exhaustively: every single-digit error and adjacent swap of a fixed body is caught', () => {
    for (const b of ['1000000', '9999999', '1234567', '5050505']) {
      const c = b + checkDigit(b);
      for (let pos = 0; pos < 8; pos++) {
        for (let d = 0; d < 10; d++) {
          const wrong = c.slice(0, pos) + String(d) + c.slice(pos + 1);
          if (wrong !== c) expect(isValidMemberCode(wrong)).toBe(false);
        }
        if (pos < 7 && c[pos] !== c[pos + 1]) {
          expect(isValidMemberCode(c.slice(0, pos) + c[pos + 1] + c[pos] + c.slice(pos + 2))).toBe(false);
        }
      }
    }
  });

  it('the schema ignores spaces and dashes and refuses malformed input', () => {
    const c = '1234567' + checkDigit('1234567');
    expect(MemberCodeSchema.parse(`${c.slice(0, 4)} ${c.slice(4)}`)).toBe(c);
    expect(MemberCodeSchema.safeParse('0' + c.slice(1)).success).toBe(false);
    expect(MemberCodeSchema.safeParse(c.slice(0, 7)).success).toBe(false);
    expect(MemberCodeSchema.safeParse('abcdefgh').success).toBe(false);
  });
});
