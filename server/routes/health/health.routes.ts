/** `GET /backend/health`: 200 when the database answers `select 1`, 503 otherwise (load balancers poll it). */
import { Hono } from 'hono';
import { sql } from 'drizzle-orm';
import type { AppEnv } from '../../context';

export function healthRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', async (c) => {
    const { db, dbKind, env } = c.var.deps;
    const kind = dbKind ?? (env.DATABASE_URL ? 'postgres' : 'pglite');
    try {
      await db.execute(sql`select 1`);
      return c.json({ ok: true, db: kind });
    } catch (err) {
      console.error('health: database unreachable:', err);
      return c.json({ ok: false, db: kind, code: 'DB_UNAVAILABLE', message: '数据库不可用' }, 503);
    }
  });
  return r;
}
