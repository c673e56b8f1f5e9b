import { describe, expect, it } from 'vitest';
import { createTestDb } from '../test-db';
import { merchants } from '../../../server/db/schema';

describe('database', () => {
  it('migrates and stores a row', async () => {
    const { db, close } = await createTestDb();
    const [m] = await db.insert(merchants).values({ name: '测试商户' }).returning();
    expect(m?.name).toBe('测试商户');
    await close();
  });
});
