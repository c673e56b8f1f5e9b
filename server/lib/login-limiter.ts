/**
 * The sign-in limiter, kept in the `login_attempts` table so every API instance shares the count
 * (docs/security.md). Failures inside a 15-minute window are counted under three keys:
 * - the address and account pair (`p:<addr>|<name>`): slowed from the 3rd failure, refused (429) from the 5th for
 *   15 minutes: one address guessing one account;
 * - the address (`ip:<addr>`): slowed from the 10th, refused from the 50th: one address guessing many accounts;
 * - the account (`u:<name>`): only slowed, from the 5th failure, by at most 3 s, and never refused, so nobody can
 *   lock an account out from elsewhere; the right password from another address still signs in.
 * Refusals fall on the failing address only. A success clears the pair's and the account's counters.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { login_attempts } from '../db/schema';

export const LIMITS = {
  pair: { slowAfter: 3, lockAfter: 5 },
  ip: { slowAfter: 10, lockAfter: 50 },
  /** The account's own counter never locks (lockAfter Infinity); its delay is capped by maxAccountDelayMs. */
  account: { slowAfter: 5, lockAfter: Infinity },
  windowMinutes: 15,
  lockMinutes: 15,
  /** Delay per failure beyond slowAfter, capped. */
  delayStepMs: 250,
  maxDelayMs: 1500,
  maxAccountDelayMs: 3000,
};

const normal = (username: string) => username.trim().toLowerCase();
export const usernameKey = (username: string) => `u:${normal(username)}`;
export const ipKey = (ip: string) => `ip:${ip}`;
export const pairKey = (ip: string, username: string) => `p:${ip}|${normal(username)}`;

/** Seconds until the latest lock among `keys` ends, or 0 when none is locked. */
export async function lockedFor(db: Db, keys: string[], now: Date): Promise<number> {
  const rows = await db
    .select({ locked_until: login_attempts.locked_until })
    .from(login_attempts)
    .where(inArray(login_attempts.key, keys));
  let until = 0;
  for (const r of rows)
    if (r.locked_until && r.locked_until > now) until = Math.max(until, r.locked_until.getTime());
  return until ? Math.ceil((until - now.getTime()) / 1000) : 0;
}

/**
 * Counts one failure for a key (atomically, in one upsert) and locks it when the threshold is reached.
 * Returns the failure count within the window.
 */
export async function recordFailure(db: Db, key: string, lockAfter: number, now: Date): Promise<number> {
  const windowStart = new Date(now.getTime() - LIMITS.windowMinutes * 60_000);
  const lockUntil = new Date(now.getTime() + LIMITS.lockMinutes * 60_000);
  const [row] = await db
    .insert(login_attempts)
    .values({ key, failures: 1, updated_at: now, locked_until: lockAfter <= 1 ? lockUntil : null })
    .onConflictDoUpdate({
      target: login_attempts.key,
      set: {
        failures: sql`case when ${login_attempts.updated_at} < ${windowStart} then 1 else ${login_attempts.failures} + 1 end`,
        updated_at: now,
      },
    })
    .returning({ failures: login_attempts.failures });
  const failures = row?.failures ?? 1;
  if (failures >= lockAfter) {
    // The lock restarts the count, so the next window starts fresh after it ends.
    await db
      .update(login_attempts)
      .set({ locked_until: lockUntil, failures: 0 })
      .where(eq(login_attempts.key, key));
  }
  return failures;
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.delete(login_attempts).where(eq(login_attempts.key, key));
}

export function delayFor(failures: number, slowAfter: number, maxMs = LIMITS.maxDelayMs): number {
  if (failures < slowAfter) return 0;
  return Math.min(maxMs, (failures - slowAfter + 1) * LIMITS.delayStepMs);
}
