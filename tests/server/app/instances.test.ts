/**
 * Two API instances on one PostgreSQL database (docs/scaling.md): both `server/main.ts` processes start together on
 * an empty database (one migrates and seeds, the other waits), take wallet pays and member stops alternately, and
 * one is killed (SIGKILL) in the middle of a burst of pays. The survivor's scheduler finishes the dead one's work
 * from the database. Then: every pay made one order, whichever instance answered (a pay whose answer was lost
 * is retried on the survivor with its key); every start command went out; every session ended exactly once (a stop
 * raced through both instances succeeds once; one refund at most per order); no device is left `running`; and the
 * ledger invariants hold with nothing left waiting. Needs PostgreSQL (TEST_DATABASE_URL): embedded PGlite is one
 * process's database.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../server/db/client';
import { assertLedgerInvariants } from '../money/invariants';
import { payFixtures, startInstance, walletPay, type Instance, type PayFixtures } from './instances-harness';

const adminUrl = process.env.TEST_DATABASE_URL;
const name = `t_${randomBytes(6).toString('hex')}`;
let a: Instance | undefined;
let b: Instance | undefined;
let database: Database | undefined;

async function admin(query: string) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  if (!adminUrl) return;
  await admin(`create database ${name}`);
});
afterAll(async () => {
  await Promise.all([a?.kill(), b?.kill()]);
  await database?.close();
  if (adminUrl) await admin(`drop database if exists ${name} with (force)`);
});

type Row = Record<string, unknown>;
const rows = async (query: ReturnType<typeof sql>): Promise<Row[]> =>
  ((await database!.db.execute(query)) as unknown as { rows: Row[] }).rows;

/** Polls until `check` holds (or fails with what it last saw). */
async function until(what: string, check: () => Promise<boolean>, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const countWhere = async (where: ReturnType<typeof sql>) =>
  Number((await rows(sql`select count(*)::int as n from device_sessions where ${where}`))[0]!.n);

async function stop(base: string, orderNo: string, cookie: string): Promise<number> {
  const res = await fetch(`${base}/backend/user/using/${orderNo}/stop`, {
    method: 'POST',
    headers: { cookie },
  });
  await res.arrayBuffer();
  return res.status;
}

describe.skipIf(!adminUrl)('two instances on one PostgreSQL database', () => {
  it(
    'share pays, stops and session ends; a killed instance loses nothing',
    { timeout: 240_000 },
    async () => {
      const url = new URL(adminUrl!);
      url.pathname = `/${name}`;
      // Both start at once on the empty database: migrations and the demo seed must not race.
      [a, b] = await Promise.all([startInstance('A', url.toString()), startInstance('B', url.toString())]);
      database = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
      const fx: PayFixtures = await payFixtures(database.db, 60, 12, 8);
      const member = (i: number) => fx.cookies[i % fx.cookies.length]!;
      const via = (i: number) => (i % 2 === 0 ? a! : b!);

      // 1. Twenty pays through both instances, then stops through both, one of them raced on both at once.
      const first = await Promise.all(
        fx.deviceIds.slice(0, 20).map((d, i) => walletPay(via(i).url, fx, d, member(i), `k1-${i}`)),
      );
      expect(first.map((r) => r.status)).toEqual(first.map(() => 201));
      await until('the first pays to run', async () => (await countWhere(sql`status = 'running'`)) === 20);
      const stops = await Promise.all(
        first.slice(0, 6).map((r, i) => stop(via(i + 1).url, r.order_no!, member(i))),
      );
      expect(stops).toEqual([200, 200, 200, 200, 200, 200]);
      const raced = await Promise.all([
        stop(a.url, first[6]!.order_no!, member(6)),
        stop(b.url, first[6]!.order_no!, member(6)),
      ]);
      expect(raced.sort()).toEqual([200, 409]);

      // 2. A burst of pays through both; A is killed while they are in flight.
      const keys = fx.deviceIds.slice(20, 60).map((d, i) => ({ d, i, key: `k2-${i}` }));
      let answeredByA!: () => void;
      const aIsBusy = new Promise<void>((r) => (answeredByA = r));
      const burst = Promise.all(
        keys.map(async ({ d, i, key }) => {
          const r = await walletPay(via(i).url, fx, d, member(i), key);
          if (i % 2 === 0) answeredByA();
          return r;
        }),
      );
      // Killed once its first pay of the burst is answered: the others sent to it are in flight.
      await aIsBusy;
      await a.kill();
      const answers = await burst;
      console.log(
        `[instances] burst of ${answers.length}: ${answers.filter((r) => r.status === 201).length} answered, ` +
          `${answers.filter((r) => r.status === 0).length} cut by the kill`,
      );
      expect(answers.some((r) => r.status === 0)).toBe(true);
      // A pay whose answer was lost is retried on the survivor with the same key: the same order, or a new one.
      for (const [n, r] of answers.entries()) {
        if (r.status === 201) continue;
        const { d, i, key } = keys[n]!;
        const again = await walletPay(b.url, fx, d, member(i), key);
        expect([200, 201], `retry of ${key}: ${again.code}`).toContain(again.status);
      }
      // Each key paid for its own device: one consume order per device, never two.
      const perDevice = await rows(
        sql`select device_id, count(*)::int as n from orders where kind = 'consume' group by 1`,
      );
      expect(perDevice).toHaveLength(60);
      expect(perDevice.filter((r) => r.n !== 1)).toEqual([]);

      // 3. Time passes: every running session is due; B ends them, and fails (refunds) what A sent and never saw acknowledged.
      await until('no session waiting for its acknowledgement', async () => {
        await database!.db.execute(sql`update device_sessions set ends_at = now() where status = 'running'`);
        return (await countWhere(sql`status in ('starting', 'running')`)) === 0;
      });

      expect(await countWhere(sql`command_sent_at is null`), 'start commands never sent').toBe(0);
      expect(await countWhere(sql`status in ('ended', 'stopped') and ended_at is null`)).toBe(0);
      expect(await countWhere(sql`true`)).toBe(60);
      const refunds = await rows(
        sql`select order_id, count(*)::int as n from ledger_transactions where kind = 'refund' group by 1 having count(*) > 1`,
      );
      expect(refunds, 'an order refunded twice').toEqual([]);
      const busy = await rows(sql`select id from devices where status = 'running'`);
      expect(busy, 'devices left running').toEqual([]);
      await assertLedgerInvariants(database.db, { settled: true });
      expect(b.output()).not.toMatch(/transition failed|could not be applied/);
    },
  );
});
