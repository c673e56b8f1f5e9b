/**
 * On PostgreSQL (TEST_DATABASE_URL): the wallet view (GET /backend/wallet reads it inside a transaction) sends its
 * reads one after another. Sent together on a transaction's one connection, node-postgres queues them and warns that
 * a query was sent while another ran, which pg 9 refuses. PGlite runs one statement at a time by design: skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/client';
import { platformWallet } from '../../../server/services/ledger';
import { walletView } from '../../../server/services/withdrawals/views';
import { createTestDb } from '../test-db';

const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.message);
let database: Database;

describe.skipIf(!process.env.TEST_DATABASE_URL)('the wallet view inside a transaction', () => {
  beforeAll(async () => {
    database = await createTestDb();
    process.on('warning', onWarning);
  }, 60_000);
  afterAll(async () => {
    process.off('warning', onWarning);
    await database?.close();
  });

  it('sends its reads one after another: node-postgres warns of no query sent while another ran', async () => {
    const view = await database.db.transaction(async (tx) =>
      walletView(tx, await platformWallet(tx), { page: 1, page_size: 20 }),
    );
    expect(view.entries).toEqual([]);
    // Node emits warnings on a later tick.
    await new Promise((ok) => setTimeout(ok, 50));
    expect(warnings.filter((m) => m.includes('already executing a query'))).toEqual([]);
  });
});
