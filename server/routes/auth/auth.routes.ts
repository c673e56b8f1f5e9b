/**
 * Staff sign-in, current account and sign-out (docs/decisions.md D6). Unknown usernames and wrong passwords answer the same
 * 401 INVALID_CREDENTIALS in the same time; repeated failures are slowed, then refused with 429 (see login-limiter).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  LoginRequestSchema,
  type LoginResponse,
  type MeResponse,
  type StaffUser,
} from '../../../src/domain/api';
import type { AppEnv, StaffAuth } from '../../context';
import { accounts, merchants } from '../../db/schema';
import { clientIp } from '../../lib/client-ip';
import { HttpError, forbidden, tooManyRequests } from '../../lib/errors';
import {
  LIMITS,
  clearFailures,
  delayFor,
  ipKey,
  pairKey,
  lockedFor,
  recordFailure,
  usernameKey,
} from '../../lib/login-limiter';
import { parseJson } from '../../lib/validate';
import { dummyHash, verifyPassword } from '../../auth/password';
import { requireStaff, staffOf } from '../../auth/staff.middleware';
import { issueToken, revokeToken } from '../../auth/tokens';

export function staffUserOf(staff: StaffAuth): StaffUser {
  return {
    id: staff.account_id,
    name: staff.name,
    role: staff.role,
    level: staff.level,
    merchant_id: staff.merchant_id,
  };
}

const lockedMessage = (seconds: number) =>
  `登录失败次数过多，请 ${Math.max(1, Math.ceil(seconds / 60))} 分钟后再试`;

export function authRoutes() {
  const r = new Hono<AppEnv>();

  r.post('/login', async (c) => {
    const { db, env, now } = c.var.deps;
    const body = await parseJson(c, LoginRequestSchema);
    const ip = clientIp(c);
    const uKey = usernameKey(body.username);
    const iKey = ipKey(ip);
    const pKey = pairKey(ip, body.username);

    // Only the failing address is refused (the pair, or the address as a whole), never the account itself.
    const locked = await lockedFor(db, [pKey, iKey], now());
    if (locked > 0) throw tooManyRequests(lockedMessage(locked), locked);

    const [account] = await db.select().from(accounts).where(eq(accounts.username, body.username)).limit(1);
    const ok = account
      ? await verifyPassword(body.password, account.password_hash)
      : (await verifyPassword(body.password, await dummyHash()), false);

    if (!ok || !account || account.status !== 'active') {
      const pairFailures = await recordFailure(db, pKey, LIMITS.pair.lockAfter, now());
      const ipFailures = await recordFailure(db, iKey, LIMITS.ip.lockAfter, now());
      const accountFailures = await recordFailure(db, uKey, LIMITS.account.lockAfter, now());
      const wait = Math.max(
        delayFor(pairFailures, LIMITS.pair.slowAfter),
        delayFor(ipFailures, LIMITS.ip.slowAfter),
        delayFor(accountFailures, LIMITS.account.slowAfter, LIMITS.maxAccountDelayMs),
      );
      if (wait > 0) await sleep(wait);
      const lockedNow = await lockedFor(db, [pKey, iKey], now());
      if (lockedNow > 0) throw tooManyRequests(lockedMessage(lockedNow), lockedNow);
      throw new HttpError(401, 'INVALID_CREDENTIALS', '用户名或密码错误');
    }

    await clearFailures(db, pKey);
    await clearFailures(db, uKey);
    if (account.merchant_id !== null) {
      const [m] = await db
        .select({ status: merchants.status })
        .from(merchants)
        .where(eq(merchants.id, account.merchant_id));
      if (m?.status !== 'active') throw forbidden('商户已停用，请联系平台管理员', 'MERCHANT_DISABLED');
    }
    const { token } = await issueToken(db, account.id, now(), env.TOKEN_TTL_HOURS);
    const user: StaffUser = {
      id: account.id,
      name: account.name,
      role: account.role,
      level: account.level,
      merchant_id: account.merchant_id,
    };
    return c.json({ token, user } satisfies LoginResponse);
  });

  r.get('/me', requireStaff(), (c) => {
    const staff = staffOf(c);
    return c.json({ user: staffUserOf(staff), features: [...staff.features].sort() } satisfies MeResponse);
  });

  r.post('/logout', requireStaff(), async (c) => {
    const staff = staffOf(c);
    if (staff.token_id) await revokeToken(c.var.deps.db, staff.token_id, c.var.deps.now());
    return c.json({ ok: true });
  });

  return r;
}
