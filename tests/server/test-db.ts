/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the PostgreSQL
 * server named by TEST_DATABASE_URL (CI runs the server suite a second time that way).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, openDatabase, type Database, type Db } from '../../server/db/client';
import * as schema from '../../server/db/schema';

/** Every file under the migrations folder (and the PGlite version), hashed: a new migration makes a new template. */
function migrationsHash(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const e of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(e.name).update(fs.readFileSync(p));
    }
  };
  walk(MIGRATIONS_DIR);
  // A dumped data directory is only readable by the PGlite build that wrote it.
  const pglitePkg = path.join(
    path.dirname(MIGRATIONS_DIR),
    '../../node_modules/@electric-sql/pglite/package.json',
  );
  if (fs.existsSync(pglitePkg)) h.update(fs.readFileSync(pglitePkg));
  return h.digest('hex').slice(0, 16);
}

/**
 * In-memory PGlite from a migrated template. Creating a PGlite cluster from scratch (initdb) costs seconds per test
 * file; loading a dumped, already migrated data directory costs a fraction of that. The template is built once per
 * migrations version and shared by the test processes through a file in the temp dir. Every file still gets its
 * own fresh database.
 */
async function openPgliteFromTemplate(): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const file = path.join(os.tmpdir(), `scango-pglite-template-${migrationsHash()}.tar`);
  let client: InstanceType<typeof PGlite> | undefined;
  if (fs.existsSync(file)) {
    try {
      client = new PGlite({ loadDataDir: new Blob([fs.readFileSync(file)]) });
      await client.waitReady;
    } catch {
      client = undefined; // a damaged template: rebuild below
    }
  }
  if (!client) {
    client = new PGlite();
    await client.waitReady;
    await migrate(drizzle(client) as never, { migrationsFolder: MIGRATIONS_DIR });
    const dump = await client.dumpDataDir('none');
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(tmp, file); // atomic: concurrent test processes never read half a file
  }
  const c = client;
  const db = drizzle(c, { schema }) as unknown as Db;
  // A no-op on a current template; keeps the guarantee that the schema is the migrated one.
  await migrate(db as never, { migrationsFolder: MIGRATIONS_DIR });
  return { db, kind: 'pglite', close: () => c.close() };
}

export async function createTestDb(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openPgliteFromTemplate();
  const { default: pg } = await import('pg');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 20 });
  return {
    ...database,
    async close() {
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      // pool.end() resolves before its connections have finished closing; forcing the drop while they close makes
      // each of them emit a FATAL 57P01 error that vitest reports as unhandled. Let them go first (bounded).
      for (let i = 0; i < 50; i++) {
        const r = await c.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if ((r.rows[0]?.n ?? 0) === 0) break;
        await new Promise((ok) => setTimeout(ok, 50));
      }
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
