import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/client';
import { withScratchDatabase } from '../../../scripts/pg-scratch';
import { createTestDb } from '../test-db';
import { merchants } from '../../../server/db/schema';

describe('database', () => {
  it('migrates and stores a row', async () => {
    const { db, close } = await createTestDb();
    const [m] = await db.insert(merchants).values({ name: '测试商户' }).returning();
    expect(m?.name).toBe('测试商户');
    await close();
  });

  // The migration lock and the migrations share one connection: a pool of one must not wait for a second.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'opens PostgreSQL with a pool of one connection',
    async () => {
      await withScratchDatabase(process.env.TEST_DATABASE_URL!, async (url) => {
        const { db, close } = await openDatabase({ databaseUrl: url, poolSize: 1 });
        try {
          const [m] = await db.insert(merchants).values({ name: '一条连接' }).returning();
          expect(m?.name).toBe('一条连接');
        } finally {
          await close();
        }
      });
    },
    60_000,
  );
});
