/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the PostgreSQL
 * server named by TEST_DATABASE_URL (CI runs the server suite a second time that way).
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../server/db/client';

export async function createTestDb(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openDatabase({ dataDir: 'memory://' });
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
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
