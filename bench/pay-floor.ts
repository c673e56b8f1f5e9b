/**
 * The floor of a wallet pay, measured in the same run as the app (docs/performance.md): the same rows a wallet pay
 * writes (the paid order, its `starting` session, the ledger transaction and entries, the member's and the shared
 * wallets' balances) by one bare SQL transaction on the app's own driver and database, with no framework, no
 * validation and no configuration reads; and the same transaction behind a plain `node:http` server. The app's
 * pays/s divided by the HTTP floor's is the figure that the machine's load does not move much.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../server/db/client';
import { accounts, merchants, share_rules } from '../server/db/schema';
import { merchantWallet, partnerWallet, platformWallet, memberWallet } from '../server/services/ledger';
import { computeSplit, newOrderNo } from '../server/services/orders';
import { ACK_TIMEOUT_MS } from '../server/services/devices/sessions';
import { runHttpLoad, runLoad, type LoadResult } from './lib';

/** One statement runner for node-postgres (a pooled client) and PGlite (its transaction handle). */
type Query = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

interface PgPool {
  connect(): Promise<{ query: Query; release(): void }>;
}
interface PgliteClient {
  transaction<T>(fn: (tx: { query: Query }) => Promise<T>): Promise<T>;
}

/** Runs `fn` in one transaction on the app's own driver (`db.$client`: the pool, or the PGlite instance). */
export function bareTransaction(db: Db): <T>(fn: (q: Query) => Promise<T>) => Promise<T> {
  const client = (db as unknown as { $client: PgPool | PgliteClient }).$client;
  if ('transaction' in client) return (fn) => client.transaction((tx) => fn((t, p) => tx.query(t, p)));
  return async (fn) => {
    const c = await client.connect();
    try {
      await c.query('begin', []);
      const out = await fn((t, p) => c.query(t, p));
      await c.query('commit', []);
      return out;
    } catch (err) {
      await c.query('rollback', []).catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  };
}

export interface FloorFixture {
  ids: number[];
  memberIds: number[];
  venue_id: number;
  price_id: number;
  price_fen: number;
  minutes: number;
}

/** The shared wallets a pay of this fixture credits (platform fee, partner shares, merchant), found once. */
async function splitWallets(db: Db, merchantId: number, venueId: number, amount: number) {
  return db.transaction(async (tx) => {
    const [m] = await tx.select().from(merchants).where(eq(merchants.id, merchantId));
    const rules = await tx
      .select({ partner_account_id: share_rules.partner_account_id, ratio_bp: share_rules.ratio_bp })
      .from(share_rules)
      .innerJoin(accounts, eq(accounts.id, share_rules.partner_account_id))
      .where(
        and(
          eq(share_rules.venue_id, venueId),
          eq(share_rules.merchant_id, merchantId),
          eq(accounts.status, 'active'),
        ),
      );
    const split = computeSplit(amount, m!.fee_rate_bp, rules);
    const out: [number, number][] = [];
    if (split.fee_fen > 0) out.push([(await platformWallet(tx)).id, split.fee_fen]);
    for (const s of split.shares)
      out.push([(await partnerWallet(tx, s.account_id, merchantId)).id, s.amount_fen]);
    if (split.merchant_fen > 0) out.push([(await merchantWallet(tx, merchantId)).id, split.merchant_fen]);
    return out.sort((a, b) => a[0] - b[0]);
  });
}

/**
 * The floor's one pay: nine statements, BEGIN and COMMIT included; then, as the app does after its commit, the
 * session goes to the devices service (start command, acknowledgement), so both carry the same background work.
 */
async function floorPay(
  run: ReturnType<typeof bareTransaction>,
  fx: FloorFixture & { walletIds: number[]; merchant_id: number; shared: [number, number][] },
  i: number,
): Promise<{ orderNo: string; sessionId: number }> {
  const m = i % fx.memberIds.length;
  const now = new Date();
  const orderNo = newOrderNo('consume', now);
  return run(async (q) => {
    await q('select principal_fen from wallets where id = $1 for update', [fx.walletIds[m]]);
    const o = await q(
      `insert into orders (order_no, kind, method, status, member_id, merchant_id, venue_id, device_id, price_id,
        amount_fen, minutes, idempotency_key, paid_at, created_at)
       values ($1, 'consume', 'wallet', 'paid', $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) returning id`,
      [
        orderNo,
        fx.memberIds[m],
        fx.merchant_id,
        fx.venue_id,
        fx.ids[i],
        fx.price_id,
        fx.price_fen,
        fx.minutes,
        `floor-${i}`,
        now,
      ],
    );
    const orderId = o.rows[0]!.id;
    const session = await q(
      `insert into device_sessions (order_id, device_id, member_id, minutes, status, ack_deadline, created_at)
       values ($1, $2, $3, $4, 'starting', $5, $6) returning id`,
      [orderId, fx.ids[i], fx.memberIds[m], fx.minutes, new Date(now.getTime() + ACK_TIMEOUT_MS), now],
    );
    const t = await q(
      `insert into ledger_transactions (kind, order_id, memo) values ('consume', $1, $2) returning id`,
      [orderId, `余额支付 ${orderNo}`],
    );
    const entries = [[fx.walletIds[m]!, -fx.price_fen], ...fx.shared];
    await q(
      `insert into ledger_entries (transaction_id, wallet_id, bucket, amount_fen)
       select $1, w, 'principal', a from unnest($2::int[], $3::bigint[]) as v(w, a)`,
      [t.rows[0]!.id, entries.map((e) => e[0]), entries.map((e) => e[1])],
    );
    await q('update wallets set principal_fen = principal_fen - $2 where id = $1', [
      fx.walletIds[m],
      fx.price_fen,
    ]);
    await q(
      `with l as (select id from wallets where id = any($1::int[]) order by id for no key update)
       update wallets set principal_fen = wallets.principal_fen + v.a
       from unnest($1::int[], $2::bigint[]) as v(id, a) where wallets.id = v.id and (select count(*) from l) > 0`,
      [fx.shared.map((s) => s[0]), fx.shared.map((s) => s[1])],
    );
    return { orderNo, sessionId: session.rows[0]!.id as number };
  });
}

/** Prepares the floor's own members' wallet ids and split once; `pay(i)` then writes one pay on device `ids[i]`. */
export async function floorPayer(
  db: Db,
  fx: FloorFixture & { merchant_id: number },
  devices: { dispatch(id: number): Promise<unknown> } | undefined,
) {
  const walletIds: number[] = [];
  for (const memberId of fx.memberIds) {
    walletIds.push((await db.transaction((tx) => memberWallet(tx, memberId, fx.merchant_id))).id);
  }
  const shared = await splitWallets(db, fx.merchant_id, fx.venue_id, fx.price_fen);
  const run = bareTransaction(db);
  const full = { ...fx, walletIds, shared };
  return async (i: number) => {
    const { orderNo, sessionId } = await floorPay(run, full, i);
    devices?.dispatch(sessionId).catch(() => undefined);
    return orderNo;
  };
}

type Limits = { maxRequests: number; maxSeconds: number; concurrency: number };

/** The bare transaction under the bench's load, no HTTP. */
export function loadBare(pay: (i: number) => Promise<string>, limits: Limits): Promise<LoadResult> {
  return runLoad(async (i) => {
    await pay(i);
    return 201;
  }, limits);
}

/** The same transaction behind plain node:http (JSON in, JSON out), loaded like the app (from a worker thread). */
export async function loadHttp(pay: (i: number) => Promise<string>, limits: Limits): Promise<LoadResult> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { i: number };
      pay(body.i).then(
        (order_no) => {
          res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ order: { order_no, status: 'paid' } }));
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ code: 'FLOOR_FAILED', message: String(err) }));
        },
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`;
  try {
    return await runHttpLoad(
      (i) => ({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ i }),
      }),
      limits,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  }
}
