/**
 * Statements built once (server/db/prebuilt.ts), on PGlite and, with TEST_DATABASE_URL, on PostgreSQL: each call
 * binds its own values (nothing of the first call is frozen into the text); results are mapped as the builder's
 * are (Dates, nullable joins); a statement given a transaction runs in it (rolled back with it, locks held by it);
 * `sql` statements return the driver's rows.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../../server/db/client';
import { prebuilt, prebuiltSql, setTo, type Params } from '../../../server/db/prebuilt';
import { member_sessions, members } from '../../../server/db/schema';
import { createTestDb } from '../test-db';

let database: Database;
beforeAll(async () => {
  database = await createTestDb();
}, 120_000);
afterAll(() => database?.close());

const openid = () => `prebuilt-${randomBytes(6).toString('hex')}`;

const memberByOpenid = prebuilt((d, p: Params<{ openid: string }>) =>
  d.select({ id: members.id, openid: members.openid }).from(members).where(eq(members.openid, p.openid)),
);

const addMember = prebuilt((d, p: Params<{ openid: string }>) =>
  d
    .insert(members)
    .values({ openid: p.openid })
    .returning({ id: members.id, created_at: members.created_at }),
);

const openSession = prebuilt((d, p: Params<{ member: number; hash: string; expires: Date }>) =>
  d
    .insert(member_sessions)
    .values({ member_id: p.member, token_hash: p.hash, expires_at: p.expires })
    .returning(),
);

const liveSession = prebuilt((d, p: Params<{ hash: string; now: Date }>) =>
  d
    .select({ member: members.openid, expires_at: member_sessions.expires_at })
    .from(member_sessions)
    .leftJoin(members, eq(members.id, member_sessions.member_id))
    .where(
      and(
        eq(member_sessions.token_hash, p.hash),
        gt(member_sessions.expires_at, p.now),
        isNull(member_sessions.revoked_at),
      ),
    ),
);

const revoke = prebuilt((d, p: Params<{ hash: string; at: Date }>) =>
  d
    .update(member_sessions)
    .set({ revoked_at: setTo(p.at) })
    .where(eq(member_sessions.token_hash, p.hash))
    .returning({ revoked_at: member_sessions.revoked_at }),
);

const lockMember = prebuilt((d, p: Params<{ id: number }>) =>
  d.select({ id: members.id }).from(members).where(eq(members.id, p.id)).for('update'),
);

const sumOf = prebuiltSql<{ ids: number[] }, { n: number; total: number }>(
  (p) => sql`select count(*)::int as n, coalesce(sum(x), 0)::int as total from unnest(${p.ids}::int[]) as x`,
);

describe('statements built once', () => {
  it('binds each call’s own values', async () => {
    const a = openid();
    const b = openid();
    const [ia] = await addMember(database.db, { openid: a });
    const [ib] = await addMember(database.db, { openid: b });
    expect(ia!.id).not.toBe(ib!.id);
    expect(ia!.created_at).toBeInstanceOf(Date);
    expect(await memberByOpenid(database.db, { openid: a })).toEqual([{ id: ia!.id, openid: a }]);
    expect(await memberByOpenid(database.db, { openid: b })).toEqual([{ id: ib!.id, openid: b }]);
    expect(await memberByOpenid(database.db, { openid: openid() })).toEqual([]);
  });

  it('maps results as the builder does: Dates encoded by their column and decoded, joins, nulls', async () => {
    const o = openid();
    const [m] = await addMember(database.db, { openid: o });
    const hash = randomBytes(16).toString('hex');
    const expires = new Date('2031-02-03T04:05:06.789Z');
    const [s] = await openSession(database.db, { member: m!.id, hash, expires });
    expect(s!.expires_at).toEqual(expires);
    const now = new Date('2030-01-01T00:00:00Z');
    const viaBuilder = await database.db
      .select({ member: members.openid, expires_at: member_sessions.expires_at })
      .from(member_sessions)
      .leftJoin(members, eq(members.id, member_sessions.member_id))
      .where(and(eq(member_sessions.token_hash, hash), gt(member_sessions.expires_at, now)));
    expect(await liveSession(database.db, { hash, now })).toEqual(viaBuilder);
    expect(viaBuilder).toEqual([{ member: o, expires_at: expires }]);
    const at = new Date('2030-06-01T12:00:00.5Z');
    expect(await revoke(database.db, { hash, at })).toEqual([{ revoked_at: at }]);
    expect(await liveSession(database.db, { hash, now })).toEqual([]);
  });

  it('runs inside the transaction it is given: rolled back with it', async () => {
    const o = openid();
    await expect(
      database.db.transaction(async (tx) => {
        await addMember(tx, { openid: o });
        expect(await memberByOpenid(tx, { openid: o })).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await memberByOpenid(database.db, { openid: o })).toEqual([]);
  });

  it('holds its row lock until the transaction that took it ends', async () => {
    const [m] = await addMember(database.db, { openid: openid() });
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const first = database.db.transaction(async (tx) => {
      await lockMember(tx, { id: m!.id });
      order.push('first locked');
      locked();
      await held;
      order.push('first commits');
    });
    await isLocked;
    const second = database.db.transaction(async (tx) => {
      await lockMember(tx, { id: m!.id });
      order.push('second locked');
    });
    await new Promise((r) => setTimeout(r, 50));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first commits', 'second locked']);
  });

  it('runs sql statements with array values and returns the driver’s rows', async () => {
    expect(await sumOf(database.db, { ids: [1, 2, 3] })).toEqual([{ n: 3, total: 6 }]);
    const inTx = await database.db.transaction((tx) => sumOf(tx, { ids: [40, 2] }));
    expect(inTx).toEqual([{ n: 2, total: 42 }]);
    expect(await sumOf(database.db, { ids: [] })).toEqual([{ n: 0, total: 0 }]);
  });

  it('runs on another database in the same process, of the other driver on PostgreSQL runs', async () => {
    const other = await openDatabase({ dataDir: 'memory://' });
    try {
      const a = openid();
      const b = openid();
      await addMember(database.db, { openid: a });
      await addMember(other.db, { openid: b });
      await addMember(database.db, { openid: b });
      expect(await memberByOpenid(other.db, { openid: a })).toEqual([]);
      expect(await memberByOpenid(other.db, { openid: b })).toHaveLength(1);
      expect(await memberByOpenid(database.db, { openid: a })).toHaveLength(1);
      expect(await sumOf(other.db, { ids: [5] })).toEqual([{ n: 1, total: 5 }]);
      expect(await database.db.transaction((tx) => sumOf(tx, { ids: [6] }))).toEqual([{ n: 1, total: 6 }]);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('refuses a call that leaves a value out', async () => {
    await expect(memberByOpenid(database.db, {} as { openid: string })).rejects.toThrow(
      /placeholder "openid"/,
    );
  });
});
