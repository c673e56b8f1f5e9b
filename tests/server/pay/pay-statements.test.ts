/**
 * A wallet pay's shape (docs/performance.md, docs/decisions.md D20), on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL: one pay sends four statements from BEGIN to COMMIT, its member's session resolved by the first (more on
 * a member's first pay at a merchant), counted at the driver; pays of many members on one
 * merchant at once (every one crediting the same platform, merchant and partner wallets) all succeed without a
 * deadlock, and the ledger invariants hold. Counts only, nothing timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc } from 'drizzle-orm';
import { openDatabase, statementCounter, type Database } from '../../../server/db/client';
import { devices } from '../../../server/db/schema';
import { createMemberSession, hashToken } from '../../../server/member/member-sessions';
import { payForDevice } from '../../../server/services/orders';
import { assertLedgerInvariants } from '../money/invariants';
import { createMember, fundMember, priceFor, seed } from '../device-sessions/devices-fixtures';
import { createTestDb } from '../test-db';

let database: Database;

beforeAll(async () => {
  // PGlite in memory (the server's driver setup, counted); PostgreSQL on a scratch database.
  database = process.env.TEST_DATABASE_URL
    ? await createTestDb()
    : await openDatabase({ dataDir: 'memory://' });
  await seed(database.db);
});
afterAll(async () => {
  await database?.close();
});

/** A new member's session, as the pay route hands it on: its cookie's token hash. */
async function sessionOf(memberId: number): Promise<string> {
  return hashToken(await createMemberSession(database.db, memberId, new Date()));
}

/** `n` new online devices beside the first demo device, each with the venue's first price. */
async function freshDevices(n: number) {
  const { db } = database;
  const [d0] = await db.select().from(devices).orderBy(asc(devices.id)).limit(1);
  const rows = await db
    .insert(devices)
    .values(
      Array.from({ length: n }, (_, i) => ({
        merchant_id: d0!.merchant_id,
        venue_id: d0!.venue_id,
        product_id: d0!.product_id,
        name: `语句计数 ${i + 1}`,
        serial: `STMT-${process.pid}-${Date.now()}-${i}`,
        last_heartbeat_at: new Date(),
      })),
    )
    .returning();
  const { price } = await priceFor(db, rows[0]!.id);
  return { rows, price };
}

describe('wallet pay', () => {
  it('sends four statements from BEGIN to COMMIT, more when it opens the wallet', async () => {
    const { db } = database;
    const { rows, price } = await freshDevices(2);
    const member = await createMember(db);
    await fundMember(db, member, rows[0]!.merchant_id, price.price_fen * 2);
    const session = await sessionOf(member);
    const deps = { db, now: () => new Date() };
    const pay = (i: number) =>
      payForDevice(
        deps,
        session,
        { device_id: rows[i]!.id, venue_id: rows[i]!.venue_id, price_id: price.id, method: 'wallet' },
        { idempotencyKey: `stmt-${i}` },
      );
    const counter = statementCounter(db)!;
    let before = counter.count;
    // fundMember opened the wallet: one statement resolves the session, locks the wallet and reads the context; one
    // more writes the order, its session and the movement.
    await pay(0);
    expect(counter.count - before).toBe(4);
    const other = await sessionOf(await createMember(db));
    const { rows: more } = await freshDevices(1);
    before = counter.count;
    // A member with no wallet at this merchant: the first statement finds none, the wallet is opened, the context read.
    await expect(
      payForDevice(deps, other, {
        device_id: more[0]!.id,
        venue_id: more[0]!.venue_id,
        price_id: price.id,
        method: 'wallet',
      }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(counter.count - before).toBeGreaterThan(4);
    before = counter.count;
    const res = await pay(1);
    expect(res.order.status).toBe('paid');
    expect(res.session?.status).toBe('starting');
    expect(counter.count - before).toBe(4);
    await assertLedgerInvariants(db);
  });

  it('lets pays of many members on one merchant run at once: all paid, no deadlock, invariants hold', async () => {
    const { db } = database;
    const n = 24;
    const { rows, price } = await freshDevices(n);
    const payers: string[] = [];
    for (let i = 0; i < n; i++) {
      const m = await createMember(db);
      await fundMember(db, m, rows[0]!.merchant_id, price.price_fen);
      payers.push(await sessionOf(m));
    }
    const deps = { db, now: () => new Date() };
    const results = await Promise.allSettled(
      rows.map((d, i) =>
        payForDevice(deps, payers[i]!, {
          device_id: d.id,
          venue_id: d.venue_id,
          price_id: price.id,
          method: 'wallet',
        }),
      ),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    await assertLedgerInvariants(db);
  });
});
