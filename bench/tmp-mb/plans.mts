import { startServer } from '../../server/start';
import { sql } from 'drizzle-orm';
import path from 'node:path'; import os from 'node:os'; import fs from 'node:fs';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plans-'));
const server = await startServer({ PORT: 0, HOST: '127.0.0.1', DATA_DIR: dir, DATABASE_URL: '', WECHAT_SANDBOX: true, SERVE_CLIENT: false, LOG_REQUESTS: false, NODE_ENV: 'production' } as never, { quiet: true });
const db = server.deps.db;
// some traffic: the seeded demo: run the scheduler-ish statements? just query the prepared statements after start.
const r = await db.execute(sql`select left(regexp_replace(statement, '\\s+', ' ', 'g'), 90) as s, generic_plans, custom_plans from pg_prepared_statements order by custom_plans desc limit 30`);
console.table((r as unknown as { rows: unknown[] }).rows);
await server.close();
