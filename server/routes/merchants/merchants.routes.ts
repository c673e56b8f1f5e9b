/**
 * `/backend/admin/merchants`: the platform admin's merchants (docs/adding-a-resource.md). List with paging, search
 * (name, contact, phone, owner's sign-in) and a status filter; add a merchant together with its owner account
 * (level 2) in one transaction; edit its contact, fee rate and status. Disabling signs its staff out at once
 * (their tokens are revoked) and the merchant's devices refuse new payments (docs/decisions.md D14). Every write
 * leaves an audit row in its transaction.
 */
import { and, asc, count, desc, eq, ilike, inArray, isNull, or } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  MerchantCreateSchema,
  MerchantListQuerySchema,
  MerchantUpdateSchema,
  type Merchant,
} from '../../../src/domain/merchants.schema';
import { hashPassword } from '../../auth/password';
import { requireAdmin, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import type { Db, Tx } from '../../db/client';
import { accounts, auth_tokens, merchants } from '../../db/schema';
import { conflict, notFound } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { likePattern } from '../../lib/search';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { merchantWallet } from '../../services/ledger';

type MerchantRow = typeof merchants.$inferSelect;
type OwnerRow = { id: number; username: string; name: string } | null;

/** The answer shape (fixed: fields may be added, never renamed). */
export function toMerchant(row: MerchantRow, owner: OwnerRow): Merchant {
  return {
    id: row.id,
    name: row.name,
    contact_name: row.contact_name,
    contact_phone: row.contact_phone,
    fee_rate_bp: row.fee_rate_bp,
    status: row.status,
    owner: owner ? { id: owner.id, username: owner.username, name: owner.name } : null,
    created_at: row.created_at.toISOString(),
  };
}

const ownerColumns = { id: accounts.id, username: accounts.username, name: accounts.name };

async function findMerchant(db: Db | Tx, id: number): Promise<Merchant> {
  const [row] = await db
    .select({ m: merchants, owner: ownerColumns })
    .from(merchants)
    .leftJoin(accounts, eq(accounts.id, merchants.owner_account_id))
    .where(eq(merchants.id, id));
  if (!row) throw notFound('商户不存在');
  return toMerchant(row.m, row.owner);
}

const usernameTaken = (username: string) =>
  conflict('USERNAME_TAKEN', `登录账号「${username}」已被使用，请换一个`, {
    owner_username: '该登录账号已被使用，请换一个',
  });

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/** Signs every staff account of the merchant out (their tokens revoked); returns how many tokens were live. */
async function revokeMerchantTokens(tx: Tx, merchantId: number, now: Date): Promise<number> {
  const staff = tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.merchant_id, merchantId));
  const revoked = await tx
    .update(auth_tokens)
    .set({ revoked_at: now })
    .where(and(isNull(auth_tokens.revoked_at), inArray(auth_tokens.account_id, staff)))
    .returning({ id: auth_tokens.id });
  return revoked.length;
}

export function merchantsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireAdmin(), async (c) => {
    const { db } = c.var.deps;
    const q = parseQuery(c, MerchantListQuerySchema);
    const pattern = q.q ? likePattern(q.q) : undefined;
    const where = and(
      pattern
        ? or(
            ilike(merchants.name, pattern),
            ilike(merchants.contact_name, pattern),
            ilike(merchants.contact_phone, pattern),
            ilike(accounts.username, pattern),
          )
        : undefined,
      q.status ? eq(merchants.status, q.status) : undefined,
    );
    const [rows, [total]] = await Promise.all([
      db
        .select({ m: merchants, owner: ownerColumns })
        .from(merchants)
        .leftJoin(accounts, eq(accounts.id, merchants.owner_account_id))
        .where(where)
        .orderBy(asc(merchants.status), desc(merchants.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(merchants)
        .leftJoin(accounts, eq(accounts.id, merchants.owner_account_id))
        .where(where),
    ]);
    return c.json(
      pageOf(
        rows.map((row) => toMerchant(row.m, row.owner)),
        total?.n ?? 0,
        q,
      ),
    );
  });

  r.get('/:id', requireAdmin(), async (c) => c.json(await findMerchant(c.var.deps.db, parseParam(c, 'id'))));

  r.post('/', requireAdmin(), async (c) => {
    const staff = staffOf(c);
    const { owner_username, owner_password, owner_name, ...input } = await parseJson(c, MerchantCreateSchema);
    const { db } = c.var.deps;
    const [taken] = await db
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.username, owner_username));
    if (taken) throw usernameTaken(owner_username);
    const password_hash = await hashPassword(owner_password);
    try {
      const created = await db.transaction(async (tx) => {
        const [m] = await tx.insert(merchants).values(input).returning();
        const [owner] = await tx
          .insert(accounts)
          .values({
            username: owner_username,
            name: owner_name || input.contact_name || input.name,
            password_hash,
            role: 'merchant',
            level: 2,
            merchant_id: m!.id,
            phone: input.contact_phone,
          })
          .returning({ id: accounts.id });
        await tx.update(merchants).set({ owner_account_id: owner!.id }).where(eq(merchants.id, m!.id));
        await merchantWallet(tx, m!.id);
        const after = await findMerchant(tx, m!.id);
        await writeAudit(tx, staff, {
          action: 'merchants.create',
          entity: 'merchants',
          entity_id: m!.id,
          merchant_id: m!.id,
          after,
        });
        return after;
      });
      return c.json(created, 201);
    } catch (err) {
      // Two admins adding the same username at once: the unique index decides, and the loser hears why.
      if (isUniqueViolation(err)) throw usernameTaken(owner_username);
      throw err;
    }
  });

  r.put('/:id', requireAdmin(), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, MerchantUpdateSchema);
    const now = c.var.deps.now();
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const before = await findMerchant(tx, id);
      if (Object.keys(input).length > 0) await tx.update(merchants).set(input).where(eq(merchants.id, id));
      const after = await findMerchant(tx, id);
      const disabled = before.status === 'active' && after.status === 'disabled';
      const revoked = disabled ? await revokeMerchantTokens(tx, id, now) : undefined;
      await writeAudit(tx, staff, {
        action: disabled
          ? 'merchants.disable'
          : before.status !== after.status
            ? 'merchants.enable'
            : 'merchants.update',
        entity: 'merchants',
        entity_id: id,
        merchant_id: id,
        before,
        after,
        ...(revoked !== undefined ? { extra: { revoked_tokens: revoked } } : {}),
      });
      return after;
    });
    return c.json(updated);
  });

  return r;
}
