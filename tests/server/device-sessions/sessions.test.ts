/**
 * Restart safety through the real server (`startServer`): session ends and unsent start commands live in the
 * database, so a server stopped mid-session and started again (or two servers at once on PostgreSQL) end the session
 * exactly once, and send a command that the stopped server never sent. Ledger invariants after each.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../server/db/client';
import { device_sessions, ledger_transactions } from '../../../server/db/schema';
import { startServer, type RunningServer } from '../../../server/start';
import { createDevicesService } from '../../../server/services/devices/devices.service';
import { createSimulatorGateway } from '../../../server/services/devices/simulator.gateway';
import { refundOrder } from '../../../server/services/orders';
import { createMember, fundMember, orderRow, payFromWallet } from './devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';

let clock = Date.now();
const now = () => new Date(clock);
const pgAdmin = process.env.TEST_DATABASE_URL;
let dataDir = '';
let databaseUrl = '';

beforeAll(async () => {
  if (pgAdmin) {
    const { default: pg } = await import('pg');
    const name = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgAdmin });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(pgAdmin);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
  } else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sessions-test-'));
  }
  // The first start of a fresh database (PGlite's initdb, the migrations, the demo seed) happens here, under the
  // hook's limit: the tests are about the starts after a stop, not about a first install (npm run bench times that).
  await (await boot()).close();
});

afterAll(async () => {
  if (pgAdmin && databaseUrl) {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: pgAdmin });
    await admin.connect();
    await admin.query(`drop database if exists ${new URL(databaseUrl).pathname.slice(1)} with (force)`);
    await admin.end();
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function boot(): Promise<RunningServer> {
  return startServer(
    {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, WECHAT_SANDBOX: true } : { DATA_DIR: dataDir }),
      PORT: 0,
      HOST: '127.0.0.1',
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      NODE_ENV: 'test',
    },
    { quiet: true, deps: { now } },
  );
}

async function session(db: Db, id: number) {
  const [s] = await db.select().from(device_sessions).where(eq(device_sessions.id, id));
  return s!;
}

async function until(f: () => Promise<boolean>, what: string, ms = 8000) {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ledgerCount = async (db: Db, order_id: number) =>
  (
    await db
      .select({ n: count() })
      .from(ledger_transactions)
      .where(eq(ledger_transactions.order_id, order_id))
  )[0]!.n;

describe('restart', () => {
  it('a server stopped during a running session: after the restart the session ends exactly once', async () => {
    const s1 = await boot();
    const db1 = s1.deps.db;
    const member = await createMember(db1);
    await fundMember(db1, member, 1, 1000, now());
    const { order, session_id, price } = await payFromWallet(db1, member, 1, now());
    await s1.deps.devices!.dispatch(session_id);
    await until(async () => (await session(db1, session_id)).status === 'running', 'ack');
    const startedAt = (await session(db1, session_id)).started_at!;
    await s1.close();

    clock += price.minutes * 60_000 + 5000;
    // On PostgreSQL two instances come up at once and race for the due session; PGlite is one process's file.
    const servers = pgAdmin ? await Promise.all([boot(), boot()]) : [await boot()];
    try {
      const db = servers[0]!.deps.db;
      await until(async () => (await session(db, session_id)).status === 'ended', 'the end');
      const s = await session(db, session_id);
      expect(s.started_at!.getTime()).toBe(startedAt.getTime());
      expect(s.ended_at!.getTime()).toBe(clock);
      expect((await orderRow(db, order.id)).status).toBe('completed');
      // One more scheduler finds nothing left to do; the order still has only its payment in the ledger.
      const extra = createDevicesService({
        db,
        now,
        refundOrder,
        gateway: createSimulatorGateway({ listSerials: async () => [], now }),
        skipLocked: servers[0]!.deps.dbKind === 'postgres',
      });
      expect((await extra.tick()).ended).toBe(0);
      expect(await ledgerCount(db, order.id)).toBe(1);
      await assertLedgerInvariants(db, { settled: true });
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('a start command the stopped server never sent is sent by the next one', async () => {
    const s1 = await boot();
    const db1 = s1.deps.db;
    const member = await createMember(db1);
    await fundMember(db1, member, 1, 1000, now());
    // Paid and committed, then the server stops before dispatching (a crash between commit and dispatch).
    const { session_id } = await payFromWallet(db1, member, 2, now());
    await s1.close();

    const s2 = await boot();
    try {
      const db = s2.deps.db;
      await until(
        async () => (await session(db, session_id)).status === 'running',
        'the command and its ack',
      );
      expect((await session(db, session_id)).command_sent_at).not.toBeNull();
      await assertLedgerInvariants(db, { settled: true });
    } finally {
      await s2.close();
    }
  });
});
