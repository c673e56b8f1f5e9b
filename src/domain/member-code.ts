/**
 * Member codes (docs/decisions.md D12): 8 digits, the last one a Damm check digit. The Damm quasigroup catches
 * every single-digit error and every swap of two adjacent digits, so a mistyped code never reaches another member
 * by accident. Codes are drawn at random (never sequential) by the server; the first digit is never 0 so that a
 * spreadsheet or a calculator keeps all eight.
 */
import { z } from 'zod';

/** The order-10 weakly totally anti-symmetric quasigroup of H. M. Damm (2004). */
const DAMM: readonly (readonly number[])[] = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2],
  [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
  [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8],
  [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4],
  [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
  [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
];

export const MEMBER_CODE_LENGTH = 8;

/** The interim digit of a digit string: 0 for a string that carries a valid check digit. */
function damm(digits: string): number {
  let interim = 0;
  for (const ch of digits) interim = DAMM[interim]![ch.charCodeAt(0) - 48]!;
  return interim;
}

/** The check digit to append to `body` (digits only). */
export function checkDigit(body: string): string {
  return String(damm(body));
}

/** True for exactly 8 digits, not starting with 0, whose check digit is right. */
export function isValidMemberCode(code: string): boolean {
  return /^[1-9]\d{7}$/.test(code) && damm(code) === 0;
}

/** A code from 7 random digits (first 1–9) plus its check digit; `randomInt(n)` yields 0..n-1. */
export function memberCodeFrom(randomInt: (n: number) => number): string {
  let body = String(1 + randomInt(9));
  for (let i = 1; i < MEMBER_CODE_LENGTH - 1; i++) body += String(randomInt(10));
  return body + checkDigit(body);
}

/** Groups the digits for reading aloud and display: "1234 5678". */
export function formatMemberCode(code: string): string {
  return `${code.slice(0, 4)} ${code.slice(4)}`;
}

/** What the employee types or scans: spaces and dashes are ignored, the rest must be a valid code. */
export const MemberCodeSchema = z
  .string()
  .transform((s) => s.replace(/[\s-]/g, ''))
  .refine(isValidMemberCode, { message: '会员码应为 8 位数字，请核对后重新输入' });
