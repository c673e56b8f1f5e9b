/**
 * The one throwaway-PostgreSQL helper, shared by the tests (tests/server/test-db.ts on TEST_DATABASE_URL) and the
 * bench: a loopback server from Debian's binaries (scripts/pg-server.sh, also usable from a shell) and scratch
 * databases on any server, created fresh and dropped after use.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PG_SERVER_SH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pg-server.sh');

/** Starts (or finds running) the throwaway server on `port`; its admin URL, or undefined without the binaries. */
export function startPgServer(port: number | string): string | undefined {
  try {
    return execFileSync('bash', [PG_SERVER_SH, 'start', String(port)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return undefined;
  }
}

export function stopPgServer(port: number | string): void {
  execFileSync('bash', [PG_SERVER_SH, 'stop', String(port)], { stdio: 'ignore' });
}

export interface ScratchDatabase {
  name: string;
  url: string;
  /**
   * Drops the database. Waits (bounded) for its connections to go first: `pool.end()` resolves before they have
   * closed, and forcing the drop under them makes each log a FATAL 57P01 'terminating connection'.
   */
  drop(): Promise<void>;
}

/** A new, empty database on the server at `adminUrl` (a URL of any of its databases, as a superuser). */
export async function createScratchDatabase(adminUrl: string, prefix = 't'): Promise<ScratchDatabase> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        for (let i = 0; i < 50; i++) {
          const r = await c.query<{ n: number }>(
            'select count(*)::int as n from pg_stat_activity where datname = $1',
            [name],
          );
          if ((r.rows[0]?.n ?? 0) === 0) break;
          await new Promise((ok) => setTimeout(ok, 50));
        }
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs `fn` with the URL of a scratch database on the server at `adminUrl`, then drops it. */
export async function withScratchDatabase<T>(
  adminUrl: string,
  fn: (url: string) => Promise<T>,
  prefix = 'bench',
): Promise<T> {
  const scratch = await createScratchDatabase(adminUrl, prefix);
  try {
    return await fn(scratch.url);
  } finally {
    await scratch.drop();
  }
}
