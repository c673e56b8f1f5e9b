/**
 * Reads behind `/backend/merchant/members`: the member x merchant pairs (a wallet or an order there) with balances,
 * last visit and totals, and one member's wallet entries, orders and sessions at one merchant. Raw SQL because the
 * list is one aggregate query over pairs; PGlite and PostgreSQL run it alike.
 */
import type { AbnormalRefundType, WechatRefundStatus } from '../../../src/domain/refunds.schema';
import { sql, type SQL } from 'drizzle-orm';
import type {
  MemberOrder,
  MemberSession,
  MemberWalletEntry,
  MerchantMember,
} from '../../../src/domain/members.schema';
import type { Db, Tx } from '../../db/client';
import { likePattern } from '../../lib/search';

type Row = Record<string, unknown>;
async function rows(db: Db | Tx, query: SQL): Promise<Row[]> {
  const res = (await db.execute(query)) as unknown as { rows: Row[] };
  return res.rows;
}
const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());
const num = (v: unknown) => Number(v ?? 0);

export interface MemberFilter {
  merchant_id?: number;
  member_id?: number;
  q?: string;
  limit: number;
  offset: number;
}

function pairsSql(f: MemberFilter): SQL {
  const m = (col: SQL) => (f.merchant_id === undefined ? sql`true` : sql`${col} = ${f.merchant_id}`);
  const who = (col: SQL) => (f.member_id === undefined ? sql`true` : sql`${col} = ${f.member_id}`);
  return sql`select member_id, merchant_id from wallets
               where kind = 'member' and ${m(sql`merchant_id`)} and ${who(sql`member_id`)}
             union
             select member_id, merchant_id from orders
               where member_id is not null and ${m(sql`merchant_id`)} and ${who(sql`member_id`)}`;
}

function searchSql(q: string | undefined): SQL {
  if (!q) return sql`true`;
  const byId = /^[0-9]{1,9}$/.test(q) ? sql` or m.id = ${Number(q)}` : sql``;
  return sql`(m.nickname ilike ${likePattern(q)}${byId})`;
}

function toMember(r: Row): MerchantMember {
  // A member's own money: online principal and cash principal (kept apart in the wallet, docs/decisions.md D18).
  const cash = num(r.cash_principal_fen);
  const principal = num(r.principal_fen) + cash;
  const bonus = num(r.bonus_fen);
  return {
    id: num(r.id),
    nickname: String(r.nickname ?? ''),
    avatar_url: String(r.avatar_url ?? ''),
    merchant_id: num(r.merchant_id),
    merchant_name: String(r.merchant_name ?? ''),
    balance_fen: principal + bonus,
    principal_fen: principal,
    cash_principal_fen: cash,
    bonus_fen: bonus,
    last_visit_at: iso(r.last_visit_at),
    orders: num(r.orders),
    consume_total_fen: num(r.consume_total_fen),
    recharge_total_fen: num(r.recharge_total_fen),
  };
}

/** One page of members (newest visit first) and the total. */
export async function listMembers(db: Db | Tx, f: MemberFilter): Promise<[MerchantMember[], number]> {
  const base = sql`from (${pairsSql(f)}) p
      join members m on m.id = p.member_id
      join merchants mc on mc.id = p.merchant_id
      left join wallets w on w.kind = 'member' and w.member_id = p.member_id and w.merchant_id = p.merchant_id
      left join lateral (
        select max(o.created_at) as last_at, count(*) as n,
               sum(o.amount_fen - o.refunded_fen) filter (where o.kind = 'consume' and o.paid_at is not null) as consume,
               sum(o.amount_fen - o.refunded_fen) filter (where o.kind = 'recharge' and o.paid_at is not null) as recharge
          from orders o where o.member_id = p.member_id and o.merchant_id = p.merchant_id
      ) a on true
      where ${searchSql(f.q)}`;
  // One after another: a transaction handed in runs one query at a time on its connection.
  const page = await rows(
    db,
    sql`select m.id, m.nickname, m.avatar_url, p.merchant_id, mc.name as merchant_name,
                 coalesce(w.principal_fen, 0) as principal_fen, coalesce(w.bonus_fen, 0) as bonus_fen,
                 coalesce(w.cash_principal_fen, 0) as cash_principal_fen,
                 coalesce(a.last_at, w.created_at) as last_visit_at, coalesce(a.n, 0) as orders,
                 coalesce(a.consume, 0) as consume_total_fen, coalesce(a.recharge, 0) as recharge_total_fen
          ${base}
          order by coalesce(a.last_at, w.created_at) desc nulls last, m.id desc, p.merchant_id
          limit ${f.limit} offset ${f.offset}`,
  );
  const total = await rows(db, sql`select count(*) as n ${base}`);
  return [page.map(toMember), num(total[0]?.n)];
}

/** One page of a member's history: `limit` rows from `offset`, newest first. */
export interface Paging {
  limit: number;
  offset: number;
}
/** What the member's page shows without paging: the latest 50 of each. */
export const RECENT: Paging = { limit: 50, offset: 0 };

/** The page's rows and the count of all (`from ... where ...` given once). */
async function paged(db: Db | Tx, select: SQL, from: SQL, order: SQL, p: Paging): Promise<[Row[], number]> {
  const page = await rows(db, sql`${select} ${from} ${order} limit ${p.limit} offset ${p.offset}`);
  const total = await rows(db, sql`select count(*) as n ${from}`);
  return [page, num(total[0]?.n)];
}

export async function memberEntries(
  db: Db | Tx,
  memberId: number,
  merchantId: number,
  p: Paging = RECENT,
): Promise<[MemberWalletEntry[], number]> {
  const [r, total] = await paged(
    db,
    sql`select e.id, t.kind, t.memo, e.bucket, e.amount_fen, o.order_no, e.created_at`,
    sql`from ledger_entries e
          join wallets w on w.id = e.wallet_id
          join ledger_transactions t on t.id = e.transaction_id
          left join orders o on o.id = t.order_id
         where w.kind = 'member' and w.member_id = ${memberId} and w.merchant_id = ${merchantId}`,
    sql`order by e.id desc`,
    p,
  );
  const items = r.map((x): MemberWalletEntry => ({
    id: num(x.id),
    kind: String(x.kind),
    memo: String(x.memo ?? ''),
    bucket: x.bucket as MemberWalletEntry['bucket'],
    amount_fen: num(x.amount_fen),
    order_no: (x.order_no as string | null) ?? null,
    created_at: iso(x.created_at)!,
  }));
  return [items, total];
}

export async function memberOrders(
  db: Db | Tx,
  memberId: number,
  merchantId: number,
  p: Paging = RECENT,
): Promise<[MemberOrder[], number]> {
  const [r, total] = await paged(
    db,
    sql`select o.order_no, o.kind, o.method, o.status, o.amount_fen, o.bonus_fen, o.refunded_fen,
               d.name as device_name, o.created_at, f.id as refund_id, f.status as refund_status,
               f.amount_fen as refund_fen, f.last_error as refund_error, f.created_at as refund_at,
               f.abnormal_type as refund_abnormal_type`,
    sql`from orders o left join devices d on d.id = o.device_id
         left join lateral (select * from wechat_refunds f where f.order_id = o.id order by f.id desc limit 1) f
           on true
         where o.member_id = ${memberId} and o.merchant_id = ${merchantId}`,
    sql`order by o.created_at desc, o.id desc`,
    p,
  );
  const items = r.map((x): MemberOrder => ({
    order_no: String(x.order_no),
    kind: x.kind as MemberOrder['kind'],
    method: x.method as MemberOrder['method'],
    status: String(x.status),
    amount_fen: num(x.amount_fen),
    bonus_fen: num(x.bonus_fen),
    refunded_fen: num(x.refunded_fen),
    device_name: (x.device_name as string | null) ?? null,
    created_at: iso(x.created_at)!,
    wechat_refund:
      x.refund_id == null
        ? null
        : {
            id: num(x.refund_id),
            status: x.refund_status as WechatRefundStatus,
            amount_fen: num(x.refund_fen),
            last_error: (x.refund_error as string | null) ?? null,
            abnormal_type: (x.refund_abnormal_type as AbnormalRefundType | null) ?? null,
            created_at: iso(x.refund_at)!,
          },
  }));
  return [items, total];
}

export async function memberSessions(
  db: Db | Tx,
  memberId: number,
  merchantId: number,
  p: Paging = RECENT,
): Promise<[MemberSession[], number]> {
  const [r, total] = await paged(
    db,
    sql`select s.id, o.order_no, d.name as device_name, s.minutes, s.status, s.started_at, s.ended_at, s.refund_fen`,
    sql`from device_sessions s
          join orders o on o.id = s.order_id
          join devices d on d.id = s.device_id
         where s.member_id = ${memberId} and o.merchant_id = ${merchantId}`,
    sql`order by s.id desc`,
    p,
  );
  const items = r.map((x): MemberSession => ({
    id: num(x.id),
    order_no: String(x.order_no),
    device_name: String(x.device_name),
    minutes: num(x.minutes),
    status: String(x.status),
    started_at: iso(x.started_at),
    ended_at: iso(x.ended_at),
    refund_fen: num(x.refund_fen),
  }));
  return [items, total];
}
