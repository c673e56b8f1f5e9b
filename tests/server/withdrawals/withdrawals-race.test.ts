/**
 * Concurrency through the HTTP API: 20 simultaneous withdrawal requests against an available balance that covers 3
 * → exactly 3 succeed (201), the others are refused (409) and change nothing; a double tap (the same
 * Idempotency-Key sent 10 times at once) creates one request and freezes once; two admins approving the same
 * request at once → one 200, one 409. The ledger invariants hold after each.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Withdrawal } from '../../../src/domain/wallet.schema';
import { withdrawal_events, withdrawals } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { bearer, createTestApp, postJson, type TestApp } from '../test-app';
import { accountByUsername, credit, walletRow } from './wallet-fixtures';

let t: TestApp;
let partner: string;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  partner = await t.login('partner');
  admin = await t.login('admin');
});
afterAll(async () => t?.close());

const post = (token: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const init = postJson(body, headers);
  return t.json<Withdrawal & { code?: string }>(path, {
    ...init,
    headers: {
      ...(init.headers as Record<string, string>),
      ...(bearer(token).headers as Record<string, string>),
    },
  });
};

describe('withdrawals under concurrency', () => {
  it('20 simultaneous requests of 100 against 300 available: exactly 3 succeed', async () => {
    const account = await accountByUsername(t.deps.db, 'partner');
    const walletId = await credit(t.deps.db, account, 300);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(partner, '/backend/wallet/withdrawals', { amount_fen: 100 }, { 'Idempotency-Key': `race-${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(17);
    expect(refused.every((r) => r.status === 409 && /BALANCE/.test(r.body.code ?? ''))).toBe(true);
    const w = await walletRow(t.deps.db, walletId);
    expect({ available: w.principal_fen, frozen: w.frozen_fen }).toEqual({ available: 0, frozen: 300 });
    const [n] = await t.deps.db
      .select({ n: count() })
      .from(withdrawals)
      .where(eq(withdrawals.wallet_id, walletId));
    expect(n!.n).toBe(3);
    await assertLedgerInvariants(t.deps.db);
  });

  it('the same Idempotency-Key sent 10 times at once creates one request', async () => {
    const account = await accountByUsername(t.deps.db, 'partner');
    const walletId = await credit(t.deps.db, account, 1000);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(
          partner,
          '/backend/wallet/withdrawals',
          { amount_fen: 700 },
          { 'Idempotency-Key': 'double-tap' },
        ),
      ),
    );
    expect(results.every((r) => r.status === 201 || r.status === 200)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const w = await walletRow(t.deps.db, walletId);
    expect({ available: w.principal_fen, frozen: w.frozen_fen }).toEqual({ available: 300, frozen: 1000 });
    await assertLedgerInvariants(t.deps.db);
  });

  it('two simultaneous approvals of one request: one succeeds, one is refused', async () => {
    const created = await post(partner, '/backend/wallet/withdrawals', { amount_fen: 100 });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const [a, b] = await Promise.all([
      post(admin, `/backend/admin/withdrawals/${id}/approve`, {}),
      post(admin, `/backend/admin/withdrawals/${id}/approve`, {}),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const events = await t.deps.db
      .select()
      .from(withdrawal_events)
      .where(eq(withdrawal_events.withdrawal_id, id));
    expect(events.map((e) => e.status)).toEqual(['requested', 'approved']);
    await assertLedgerInvariants(t.deps.db);
  });
});
