/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the PostgreSQL
 * server named by TEST_DATABASE_URL (CI runs the server suite a second time that way), made by the throwaway-PostgreSQL
 * helper shared with the bench (scripts/pg-scratch.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, openDatabase, pgliteDatabase, type Database } from '../../server/db/client';
import { createScratchDatabase } from '../../scripts/pg-scratch';

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
  // The server's own PGlite driver setup (one call per statement, counted).
  const database = await pgliteDatabase(client);
  // A no-op on a current template; keeps the guarantee that the schema is the migrated one.
  await migrate(database.db as never, { migrationsFolder: MIGRATIONS_DIR });
  return database;
}

export async function createTestDb(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openPgliteFromTemplate();
  const scratch = await createScratchDatabase(adminUrl);
  // TEST_POOL_SIZE=1 finds any path that holds a connection while it asks for another (docs/decisions.md D29).
  const database = await openDatabase({
    databaseUrl: scratch.url,
    poolSize: Number(process.env.TEST_POOL_SIZE ?? 20),
  });
  return {
    ...database,
    async close() {
      await database.close();
      await scratch.drop();
    },
  };
}
