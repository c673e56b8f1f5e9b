/**
 * Staff bearer tokens: 32 random bytes (base64url) handed to the client once; only their SHA-256 is stored, with an
 * expiry and a revocation time, so a leaked database does not leak usable tokens and logout works on every instance.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { auth_tokens } from '../db/schema';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function issueToken(
  db: Db,
  accountId: number,
  now: Date,
  ttlHours: number,
): Promise<{ token: string; id: number; expires_at: Date }> {
  const token = newToken();
  const expires_at = new Date(now.getTime() + ttlHours * 3600_000);
  const [row] = await db
    .insert(auth_tokens)
    .values({ account_id: accountId, token_hash: hashToken(token), expires_at, created_at: now })
    .returning({ id: auth_tokens.id });
  return { token, id: row!.id, expires_at };
}

export async function revokeToken(db: Db, tokenId: number, now: Date): Promise<void> {
  await db
    .update(auth_tokens)
    .set({ revoked_at: now })
    .where(and(eq(auth_tokens.id, tokenId), isNull(auth_tokens.revoked_at)));
}

/** Bearer token from an Authorization header, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+([A-Za-z0-9_\-.~+/=]{16,256})\s*$/i.exec(header);
  return m?.[1];
}
