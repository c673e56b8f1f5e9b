/**
 * `/backend/sub-users`: the merchant's partner (level 3) and employee (level 4) accounts (docs/decisions.md D17).
 * List with paging, search and filters (the admin sees every merchant's, with a merchant filter); add with an
 * initial password; edit name and phone, reset the password, disable or enable. Disabling or a new password revokes
 * the account's tokens in the same transaction. Every write leaves an audit row in its transaction.
 */
import { and, asc, count, eq, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  SubUserInputSchema,
  SubUserListQuerySchema,
  SubUserUpdateSchema,
  type SubUser,
} from '../../../src/domain/sub-users.schema';
import { hashPassword } from '../../auth/password';
import { assertOwnMerchant, merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { accounts, auth_tokens, merchants } from '../../db/schema';
import { conflict, notFound, validationFailed } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { likePattern } from '../../lib/search';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';

const SUB_LEVELS = [3, 4];
const LEVEL_OF = { partner: 3, employee: 4 } as const;

const columns = {
  id: accounts.id,
  username: accounts.username,
  name: accounts.name,
  phone: accounts.phone,
  role: accounts.role,
  level: accounts.level,
  status: accounts.status,
  merchant_id: accounts.merchant_id,
  merchant_name: merchants.name,
  created_at: accounts.created_at,
};
type Row = Pick<
  typeof accounts.$inferSelect,
  'id' | 'username' | 'name' | 'phone' | 'role' | 'level' | 'status' | 'merchant_id' | 'created_at'
> & { merchant_name: string | null };

/** The answer shape (fixed: fields may be added, never renamed). */
export function toSubUser(r: Row): SubUser {
  return {
    id: r.id,
    username: r.username,
    name: r.name,
    phone: r.phone,
    role: r.role as SubUser['role'],
    level: r.level as SubUser['level'],
    status: r.status,
    merchant_id: r.merchant_id ?? 0,
    merchant_name: r.merchant_name ?? '',
    created_at: r.created_at.toISOString(),
  };
}

/** A sub-user the staff may see, or 404 (another merchant's, a merchant owner's or the admin's id alike). */
async function findSubUser(db: Db | Tx, staff: StaffAuth, id: number): Promise<SubUser> {
  const [row] = await db
    .select(columns)
    .from(accounts)
    .leftJoin(merchants, eq(merchants.id, accounts.merchant_id))
    .where(and(eq(accounts.id, id), inArray(accounts.level, SUB_LEVELS)));
  if (!row) throw notFound('子账号不存在');
  assertOwnMerchant(staff, row.merchant_id, '子账号');
  return toSubUser(row);
}

/** The merchant a new sub-user belongs to: the staff's own, or for the admin the one named in the body. */
async function targetMerchant(db: Db | Tx, staff: StaffAuth, named: number | undefined): Promise<number> {
  const own = merchantScope(staff);
  if (own !== null) return own;
  if (named === undefined) throw validationFailed({ merchant_id: '请选择商户' });
  const [m] = await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, named));
  if (!m) throw validationFailed({ merchant_id: '商户不存在' });
  return m.id;
}

export function subUsersRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('subUsers.subUsers'));

  r.get('/', async (c) => {
    const { db } = c.var.deps;
    const staff = staffOf(c);
    const q = parseQuery(c, SubUserListQuerySchema);
    const scope = merchantScope(staff) ?? q.merchant_id;
    const where: (SQL | undefined)[] = [
      inArray(accounts.level, SUB_LEVELS),
      scope === undefined ? undefined : eq(accounts.merchant_id, scope),
      q.role ? eq(accounts.level, LEVEL_OF[q.role]) : undefined,
      q.status ? eq(accounts.status, q.status) : undefined,
      q.q
        ? or(
            ilike(accounts.username, likePattern(q.q)),
            ilike(accounts.name, likePattern(q.q)),
            ilike(accounts.phone, likePattern(q.q)),
          )
        : undefined,
    ];
    const [rows, [total]] = await Promise.all([
      db
        .select(columns)
        .from(accounts)
        .leftJoin(merchants, eq(merchants.id, accounts.merchant_id))
        .where(and(...where))
        .orderBy(asc(accounts.status), asc(accounts.level), asc(accounts.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(accounts)
        .where(and(...where)),
    ]);
    return c.json(pageOf(rows.map(toSubUser), total?.n ?? 0, q));
  });

  r.get('/:id', async (c) => c.json(await findSubUser(c.var.deps.db, staffOf(c), parseParam(c, 'id'))));

  r.post('/', async (c) => {
    const staff = staffOf(c);
    const input = await parseJson(c, SubUserInputSchema);
    const password_hash = await hashPassword(input.password);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const merchant_id = await targetMerchant(tx, staff, input.merchant_id);
      const [row] = await tx
        .insert(accounts)
        .values({
          username: input.username,
          name: input.name,
          phone: input.phone,
          role: input.role,
          level: LEVEL_OF[input.role],
          merchant_id,
          password_hash,
        })
        .onConflictDoNothing({ target: accounts.username })
        .returning({ id: accounts.id });
      if (!row) throw conflict('USERNAME_TAKEN', `用户名“${input.username}”已被使用，请换一个`);
      const after = await findSubUser(tx, staff, row.id);
      await writeAudit(tx, staff, {
        action: 'sub_users.create',
        entity: 'accounts',
        entity_id: row.id,
        merchant_id,
        after,
      });
      return after;
    });
    return c.json(created, 201);
  });

  r.put('/:id', async (c) => {
    const staff = staffOf(c);
    const { now } = c.var.deps;
    const id = parseParam(c, 'id');
    const input = await parseJson(c, SubUserUpdateSchema);
    const password_hash = input.password === undefined ? undefined : await hashPassword(input.password);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const before = await findSubUser(tx, staff, id);
      const changes = Object.fromEntries(
        Object.entries({ name: input.name, phone: input.phone, status: input.status, password_hash }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      if (Object.keys(changes).length > 0) await tx.update(accounts).set(changes).where(eq(accounts.id, id));
      // Signed out at once: a disabled account or a new password leaves no token working.
      const signOut = input.status === 'disabled' || password_hash !== undefined;
      if (signOut) {
        await tx
          .update(auth_tokens)
          .set({ revoked_at: now() })
          .where(and(eq(auth_tokens.account_id, id), isNull(auth_tokens.revoked_at)));
      }
      const after = await findSubUser(tx, staff, id);
      await writeAudit(tx, staff, {
        action: 'sub_users.update',
        entity: 'accounts',
        entity_id: id,
        merchant_id: before.merchant_id,
        before,
        after,
        extra: { password_reset: password_hash !== undefined, signed_out: signOut },
      });
      return after;
    });
    return c.json(updated);
  });

  return r;
}
