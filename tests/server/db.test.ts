import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/client';
import { merchants } from '../../server/db/schema';

describe('database', () => {
  it('migrates and stores a row', async () => {
    const { db, close } = await openDatabase({ dataDir: 'memory://' });
    const [m] = await db.insert(merchants).values({ name: '测试商户' }).returning();
    expect(m?.name).toBe('测试商户');
    await close();
  });
});
