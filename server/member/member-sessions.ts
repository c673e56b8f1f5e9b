/**
 * Member (end-user) sessions behind the HttpOnly `sid` cookie: a random token, only its SHA-256 stored, 30 days.
 * Owns creating, resolving and revoking them; the cookie attributes live here too so every route sets them alike.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { Db, Tx } from '../db/client';
import { type Params, prebuilt } from '../db/prebuilt';
import { HttpError } from '../lib/errors';
import { member_sessions } from '../db/schema';

export const MEMBER_COOKIE = 'sid';
export const MEMBER_SESSION_DAYS = 30;

/** What every member route answers without a live session (the client turns it into a WeChat sign-in). */
export const WECHAT_AUTH_REQUIRED = { code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' } as const;

/** That answer as an error to throw. */
export const memberSessionRequired = () =>
  new HttpError(401, WECHAT_AUTH_REQUIRED.code, WECHAT_AUTH_REQUIRED.message);

const DAY_MS = 24 * 3600 * 1000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const newToken = () => randomBytes(32).toString('base64url');

/** Creates a session for the member and returns its token (to put in the cookie; never stored in clear). */
export async function createMemberSession(tx: Db | Tx, member_id: number, now: Date): Promise<string> {
  return (await openMemberSession(tx, member_id, now)).token;
}

/** Like `createMemberSession`, with the new session's id. */
export async function openMemberSession(
  tx: Db | Tx,
  member_id: number,
  now: Date,
): Promise<{ token: string; id: number }> {
  const token = newToken();
  const [row] = await tx
    .insert(member_sessions)
    .values({
      member_id,
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + MEMBER_SESSION_DAYS * DAY_MS),
      created_at: now,
    })
    .returning({ id: member_sessions.id });
  return { token, id: row!.id };
}

/** True while the session exists, has not expired and was not revoked (signed out). */
export async function memberSessionLive(db: Db | Tx, id: number, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: member_sessions.id })
    .from(member_sessions)
    .where(
      and(
        eq(member_sessions.id, id),
        gt(member_sessions.expires_at, now),
        isNull(member_sessions.revoked_at),
      ),
    );
  return row !== undefined;
}

/** The stored hash of a cookie's token; null for a token no session could have (wrong length). */
export const sessionHashOf = (token: string | undefined): string | null =>
  token === undefined || token.length < 16 || token.length > 128 ? null : hashToken(token);

/** The member behind a token's hash (`sessionHashOf`), or null when unknown, expired or revoked. */
export async function memberIdForHash(db: Db, hash: string, now: Date): Promise<number | null> {
  const [row] = await memberOfHash(db, { hash, now });
  return row?.member_id ?? null;
}

/** Every member request resolves its cookie here: built once (server/db/prebuilt.ts). */
const memberOfHash = prebuilt((d, p: Params<{ hash: string; now: Date }>) =>
  d
    .select({ member_id: member_sessions.member_id })
    .from(member_sessions)
    .where(
      and(
        eq(member_sessions.token_hash, p.hash),
        gt(member_sessions.expires_at, p.now),
        isNull(member_sessions.revoked_at),
      ),
    ),
);

export async function revokeMemberSession(db: Db, token: string, now: Date): Promise<void> {
  await db
    .update(member_sessions)
    .set({ revoked_at: now })
    .where(and(eq(member_sessions.token_hash, hashToken(token)), isNull(member_sessions.revoked_at)));
}

/** HttpOnly (scripts never see it), SameSite=Lax (sent on the top-level return from WeChat), Secure on https. */
export function setMemberCookie(c: Context, token: string, publicUrl: string): void {
  setCookie(c, MEMBER_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: publicUrl.startsWith('https://'),
    maxAge: MEMBER_SESSION_DAYS * 24 * 3600,
  });
}

export function clearMemberCookie(c: Context, publicUrl: string): void {
  deleteCookie(c, MEMBER_COOKIE, { path: '/', secure: publicUrl.startsWith('https://') });
}
