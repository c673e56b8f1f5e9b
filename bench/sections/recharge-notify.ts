/**
 * The recharge notification path against its floor (docs/performance.md), in one run on PGlite and PostgreSQL:
 * pending recharge orders (pay + bonus) are booked by signed, encrypted WeChat Pay notifications
 * (`POST /backend/wechat/pay/notify`, signature checked and resource decrypted by the app), and the same rows (the
 * order paid, its notification row, the ledger transaction and entries, the member's and the external wallets'
 * balances) by one bare SQL transaction behind plain `node:http`. Invariants checked after both. BENCH_ONLY=notify.
 */
import path from 'node:path';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { asc } from 'drizzle-orm';
import { startServer } from '../../server/start';
import { members, orders, packages } from '../../server/db/schema';
import { externalWallet, memberWallet } from '../../server/services/ledger';
import { type Order, newOrderNo } from '../../server/services/orders';
import type { Db } from '../../server/db/client';
import { ledgerViolations } from '../../tests/server/money/invariants';
import type { BenchContext, BenchRow } from '../types';
import { alternating, ROUNDS, round, runHttpLoad, withScratchDatabase } from '../lib';
import { bareTransaction, loadHttp } from '../pay-floor';

const MEMBERS = 64;

const invNote = (v: string[]) =>
  v.length === 0 ? 'invariants ok' : `INVARIANTS VIOLATED (${v.length}): ${v[0]}`;

/** Members, two sets of pending recharge orders (floor, app) and the wallets a recharge credits. */
async function fixtures(d: Db, n: number) {
  const [pkg] = await d.select().from(packages).orderBy(asc(packages.id)).limit(1);
  if (!pkg) throw new Error('no demo package');
  const ms = await d
    .insert(members)
    .values(Array.from({ length: MEMBERS }, () => ({ openid: `bench-n-${randomBytes(6).toString('hex')}` })))
    .returning();
  const pending = async () =>
    d
      .insert(orders)
      .values(
        Array.from({ length: n }, (_, i) => ({
          order_no: newOrderNo('recharge'),
          kind: 'recharge' as const,
          method: 'wechat' as const,
          status: 'pending' as const,
          member_id: ms[i % MEMBERS]!.id,
          merchant_id: pkg.merchant_id,
          package_id: pkg.id,
          amount_fen: pkg.pay_fen,
          bonus_fen: pkg.bonus_fen,
        })),
      )
      .returning();
  const floorOrders = await pending();
  const appOrders = await pending();
  // One after another: the transaction's statements share one connection.
  const ids = await d.transaction(async (tx) => {
    const wallets: number[] = [];
    for (const m of ms) wallets.push((await memberWallet(tx, m.id, pkg.merchant_id)).id);
    return {
      wallets,
      wechat: (await externalWallet(tx, 'wechat')).id,
      promotion: (await externalWallet(tx, 'promotion')).id,
    };
  });
  return { ms, floorOrders, appOrders, ids };
}

/** The floor's one booking: ten statements, BEGIN and COMMIT included, writing the rows the app writes. */
function floorNotifier(
  d: Db,
  floorOrders: Order[],
  ids: { wallets: number[]; wechat: number; promotion: number },
): (i: number) => Promise<string> {
  const run = bareTransaction(d);
  return (i: number) =>
    run(async (q) => {
      const o = floorOrders[i]!;
      const w = ids.wallets[i % MEMBERS]!;
      await q('select id from orders where id = $1 for update', [o.id]);
      await q(
        `insert into pay_notifications (notification_id, out_trade_no, transaction_id, received_at)
         values ($1, $2, $3, $4)`,
        [`floor-${o.order_no}`, o.order_no, `tx-${o.order_no}`, new Date()],
      );
      await q('select id from wallets where id = $1 for update', [w]);
      const t = await q(
        `insert into ledger_transactions (kind, order_id, memo) values ('recharge', $1, $2) returning id`,
        [o.id, `微信支付 ${o.order_no}`],
      );
      await q(
        `insert into ledger_entries (transaction_id, wallet_id, bucket, amount_fen) values
         ($1, $2, 'principal', $4), ($1, $3, 'principal', -$4::bigint), ($1, $2, 'bonus', $6), ($1, $5, 'principal', -$6::bigint)`,
        [t.rows[0]!.id, w, ids.wechat, o.amount_fen, ids.promotion, o.bonus_fen],
      );
      await q(
        'update wallets set principal_fen = principal_fen + $2, bonus_fen = bonus_fen + $3 where id = $1',
        [w, o.amount_fen, o.bonus_fen],
      );
      await q(
        `with l as (select id from wallets where id in ($1, $2) order by id for no key update)
         update wallets set principal_fen = wallets.principal_fen + v.a
         from (values ($1::int, -$3::bigint), ($2::int, -$4::bigint)) as v(id, a)
         where wallets.id = v.id and (select count(*) from l) > 0`,
        [ids.wechat, ids.promotion, o.amount_fen, o.bonus_fen],
      );
      await q(`update orders set status = 'paid', paid_at = $2, wechat_transaction_id = $3 where id = $1`, [
        o.id,
        new Date(),
        `tx-${o.order_no}`,
      ]);
      return o.order_no;
    });
}

async function notifications(
  ctx: BenchContext,
  db: 'pglite' | 'postgres',
  url?: string,
): Promise<BenchRow[]> {
  const server = await startServer(
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: path.join(ctx.workDir, `notify-${db}`),
      DATABASE_URL: url ?? '',
      WECHAT_SANDBOX: true,
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      NODE_ENV: 'production',
    },
    { quiet: true },
  );
  try {
    const d = server.deps.db;
    const wechat = server.deps.wechat!;
    const n = ctx.limits.maxRequests;
    const { ms, floorOrders, appOrders, ids } = await fixtures(d, n);
    const floorPay = floorNotifier(d, floorOrders, ids);
    const limits = { ...ctx.limits, maxRequests: n };
    const load = os.loadavg()[0]!.toFixed(1);
    const signed = appOrders.map((o, i) =>
      wechat.sandbox!.signedNotification({
        appid: wechat.pay.appid,
        mchid: wechat.pay.mchid,
        out_trade_no: o.order_no,
        transaction_id: `tx-${o.order_no}`,
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        payer: { openid: ms[i % MEMBERS]!.openid },
        amount: { total: o.amount_fen },
      }),
    );
    // The floor and the app in alternating rounds (bench/lib.ts, `alternating`), the ledger checked after each.
    ctx.log(`recharge-notify (${db}): node:http floor and the app, ${ROUNDS} rounds each`);
    const notifyUrl = `http://127.0.0.1:${server.port}/backend/wechat/pay/notify`;
    const runs = await alternating(
      n,
      ROUNDS,
      (which, from, count) => {
        const part = { ...limits, maxRequests: count };
        if (which === 'a') return loadHttp((i) => floorPay(from + i), part);
        return runHttpLoad((i) => {
          const sig = signed[from + i]!;
          return { url: notifyUrl, method: 'POST', headers: sig.headers, body: sig.body };
        }, part);
      },
      () => ledgerViolations(d, {}),
    );
    const floor = runs.a;
    const r = runs.b;
    const floorInv = invNote(runs.checks.a.flat());
    const inv = invNote(runs.checks.b.flat());
    const row = (name: string, x: typeof r, note: string): BenchRow => ({
      section: 'recharge-notify',
      name,
      db,
      requests: x.requests,
      rps: round(x.rps),
      p50_ms: round(x.p50_ms),
      p99_ms: round(x.p99_ms),
      note: `${x.errors ? `${x.errors} errors ${JSON.stringify(x.statuses)}` : 'all 2xx'}; ${note}`,
    });
    const c = ctx.limits.concurrency;
    return [
      row(`floor: the same rows by a bare transaction behind node:http, concurrency ${c}`, floor, floorInv),
      row(
        `POST /backend/wechat/pay/notify (recharge, signed), concurrency ${c}`,
        r,
        `${round(r.rps / floor.rps, 2)} of the node:http floor (rounds ${runs.ratios.map((x) => round(x, 2)).join(', ')}); ` +
          `p99 ${round(r.p99_ms / floor.p99_ms, 2)} of the floor's; ` +
          `load average ${load}; ${inv}`,
      ),
    ];
  } finally {
    await server.close();
  }
}

export default async function rechargeNotifySection(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('recharge-notify: embedded DB');
  const rows = await notifications(ctx, 'pglite');
  if (ctx.postgresUrl) {
    ctx.log('recharge-notify: PostgreSQL');
    rows.push(...(await withScratchDatabase(ctx.postgresUrl, (url) => notifications(ctx, 'postgres', url))));
  }
  return rows;
}
