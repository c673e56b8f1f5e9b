/**
 * WeChat Pay notifications: what `parseNotification` accepts and refuses, and how the sandbox delivers them
 * (duplicates, SIGNTEST probes, fake amounts, delays, and WeChat's retry schedule, compressed) over real HTTP.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox_pay_notifications } from '../../../server/db/schema';
import { createWechatSandbox } from '../../../server/sandbox/index';
import { RETRY_SCHEDULE_S } from '../../../server/sandbox/notifier';
import { aesGcmEncrypt } from '../../../server/wechat/crypto';
import { WechatPayClient } from '../../../server/wechat/pay';
import { WechatPayVerifyError, type Transaction } from '../../../server/wechat/types';
import { createTestApp } from '../test-app';
import { PROTOCOL, type ProtocolApp, tradeNo } from './wechat-harness';

const FACTOR = 0.002;
let h: ProtocolApp;

beforeAll(async () => {
  h = await createTestApp({ ...PROTOCOL, wechat: { receiver: true, retryFactor: FACTOR, pollMs: 5 } });
});
afterAll(async () => {
  await h?.close();
});

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof WechatPayVerifyError) return e.reason;
    throw e;
  }
  throw new Error('expected a verification failure');
}

async function paidTransaction(amount = 800): Promise<{ no: string; prepayId: string; tx: Transaction }> {
  const no = tradeNo('N');
  const { prepay_id } = await h.wechat.pay.prepayJsapi({
    out_trade_no: no,
    description: '洗衣机',
    amount_fen: amount,
    openid: 'oN',
  });
  return { no, prepayId: prepay_id, tx: (await h.wechat.pay.queryByOutTradeNo(no))! };
}

/** Deliveries for one order, in arrival order. */
const deliveriesOf = (no: string) =>
  h.received.filter((r) => {
    try {
      const n = h.wechat.pay.parseNotification(r.body, r.headers);
      return n.kind === 'transaction' && n.transaction.out_trade_no === no;
    } catch {
      return false;
    }
  });

describe('parseNotification', () => {
  it('accepts a genuine notification and refuses bad signature, probe, stale timestamp, unknown serial', async () => {
    const { tx } = await paidTransaction();
    const success: Transaction = {
      ...tx,
      trade_state: 'SUCCESS',
      transaction_id: '4200000000202601010000000001',
    };

    const good = h.sandbox.signedNotification(success);
    const parsed = h.wechat.pay.parseNotification(good.body, good.headers);
    expect(parsed).toMatchObject({
      kind: 'transaction',
      event_type: 'TRANSACTION.SUCCESS',
      transaction: success,
    });
    // Headers as a Fetch Headers object work too (what Hono's c.req.raw.headers gives).
    expect(h.wechat.pay.parseNotification(good.body, new Headers(good.headers)).id).toBe(parsed.id);

    const bad = h.sandbox.signedNotification(success, { signature: 'bad' });
    expect(reason(() => h.wechat.pay.parseNotification(bad.body, bad.headers))).toBe('BAD_SIGNATURE');

    const probe = h.sandbox.signedNotification(success, { signature: 'probe' });
    expect(probe.headers['Wechatpay-Signature']).toMatch(/^WECHATPAY\/SIGNTEST\//);
    expect(reason(() => h.wechat.pay.parseNotification(probe.body, probe.headers))).toBe('SIGNTEST_PROBE');

    const stale = h.sandbox.signedNotification(success, { timestampOffsetS: -301 });
    expect(reason(() => h.wechat.pay.parseNotification(stale.body, stale.headers))).toBe('STALE_TIMESTAMP');

    const foreignSerial = { ...good.headers, 'Wechatpay-Serial': 'PUB_KEY_ID_UNKNOWN' };
    expect(reason(() => h.wechat.pay.parseNotification(good.body, foreignSerial))).toBe('UNKNOWN_SERIAL');

    const { 'Wechatpay-Signature': _dropped, ...noSig } = good.headers;
    expect(reason(() => h.wechat.pay.parseNotification(good.body, noSig))).toBe('MISSING_HEADERS');
  });

  it('refuses a tampered body, a re-signed tampered ciphertext and a wrong APIv3 key', async () => {
    const { tx } = await paidTransaction();
    const good = h.sandbox.signedNotification({ ...tx, trade_state: 'SUCCESS' });

    // Re-serialized or edited body under the original signature: the signature no longer matches.
    const reserialized = JSON.stringify(JSON.parse(good.body), null, 1);
    expect(reason(() => h.wechat.pay.parseNotification(reserialized, good.headers))).toBe('BAD_SIGNATURE');
    const env = JSON.parse(good.body) as { resource: { ciphertext: string } };
    const flipped = Buffer.from(env.resource.ciphertext, 'base64');
    flipped[3] = flipped[3]! ^ 0xff;
    env.resource.ciphertext = flipped.toString('base64');
    const tamperedBody = JSON.stringify(env);
    expect(reason(() => h.wechat.pay.parseNotification(tamperedBody, good.headers))).toBe('BAD_SIGNATURE');

    // Even correctly signed, a ciphertext that does not authenticate under the APIv3 key is refused.
    const resigned = h.sandbox.signedNotification({ ...tx, trade_state: 'SUCCESS' });
    const env2 = JSON.parse(resigned.body) as { resource: { ciphertext: string; nonce: string } };
    env2.resource.ciphertext = aesGcmEncrypt(
      JSON.stringify(tx),
      'K'.repeat(32),
      env2.resource.nonce,
      'transaction',
    );
    const body2 = JSON.stringify(env2);
    const signed2 = h.sandbox.signBody(body2);
    expect(reason(() => h.wechat.pay.parseNotification(body2, signed2.headers))).toBe('DECRYPT_FAILED');

    const otherKey = new WechatPayClient({ ...h.sandbox.payConfig, apiV3Key: 'x'.repeat(32) });
    expect(reason(() => otherKey.parseNotification(good.body, good.headers))).toBe('DECRYPT_FAILED');
  });
});

describe('delivery', () => {
  it('duplicate switch: the same notification (same id) arrives twice; each one verifies', async () => {
    const { no, prepayId } = await paidTransaction();
    await h.sandbox.confirmPayment(prepayId, { duplicate: true });
    await h.sandbox.drainNotifications();
    const got = deliveriesOf(no);
    expect(got).toHaveLength(2);
    const [a, b] = got.map((r) => h.wechat.pay.parseNotification(r.body, r.headers));
    expect(a!.id).toBe(b!.id);
  });

  it('probe switch: a SIGNTEST probe (refused) and the genuine one both arrive', async () => {
    const { no, prepayId } = await paidTransaction();
    const before = h.received.length;
    // The receiver refuses what does not verify, as a correct merchant does.
    h.receiverStatus = (r) => {
      try {
        h.wechat.pay.parseNotification(r.body, r.headers);
        return 200;
      } catch {
        return 401;
      }
    };
    try {
      await h.sandbox.confirmPayment(prepayId, { probe: true });
      await h.sandbox.drainNotifications();
    } finally {
      h.receiverStatus = () => 200;
    }
    const mine = h.received.slice(before);
    expect(mine).toHaveLength(2);
    // Deliveries go out in parallel (as WeChat's do), so either may arrive first.
    const probes = mine.filter((r) =>
      /^WECHATPAY\/SIGNTEST\//.test(r.headers.get('wechatpay-signature') ?? ''),
    );
    expect(probes).toHaveLength(1);
    expect(deliveriesOf(no)).toHaveLength(1);
    const [probeRow] = await h.database.db
      .select()
      .from(sandbox_pay_notifications)
      .where(eq(sandbox_pay_notifications.kind, 'probe'));
    // A refused probe is not retried.
    expect(probeRow).toMatchObject({ attempts: 1, last_status: 401 });
    expect(probeRow!.given_up_at).not.toBeNull();
  });

  it('wrong-amount switch: a correctly signed notice with another amount; the query still shows the truth', async () => {
    const { no, prepayId } = await paidTransaction(800);
    await h.sandbox.confirmPayment(prepayId, { wrongAmountFen: 1 });
    await h.sandbox.drainNotifications();
    const got = deliveriesOf(no);
    expect(got).toHaveLength(1);
    const n = h.wechat.pay.parseNotification(got[0]!.body, got[0]!.headers);
    if (n.kind !== 'transaction') throw new Error('expected a transaction');
    expect(n.transaction.amount?.total).toBe(1);
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({
      trade_state: 'SUCCESS',
      amount: { total: 800 },
    });
  });

  it('silent switch: paid without a notification (the merchant must query)', async () => {
    const { no, prepayId } = await paidTransaction();
    await h.sandbox.confirmPayment(prepayId, { silent: true });
    await h.sandbox.drainNotifications();
    expect(deliveriesOf(no)).toHaveLength(0);
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({ trade_state: 'SUCCESS' });
  });

  it('delay switch postpones the first delivery', async () => {
    const { no, prepayId } = await paidTransaction();
    const t0 = Date.now();
    await h.sandbox.confirmPayment(prepayId, { delayMs: 150 });
    await h.sandbox.drainNotifications();
    const [first] = deliveriesOf(no);
    expect(first!.at - t0).toBeGreaterThanOrEqual(140);
  });

  it('retries a failing receiver on the (compressed) WeChat schedule until it answers 2xx', async () => {
    const { no, prepayId } = await paidTransaction();
    const mine: number[] = [];
    h.receiverStatus = (r) => {
      const n = h.wechat.pay.parseNotification(r.body, r.headers);
      if (n.kind !== 'transaction' || n.transaction.out_trade_no !== no) return 200;
      mine.push(r.at);
      return mine.length <= 3 ? 500 : 204;
    };
    try {
      await h.sandbox.confirmPayment(prepayId);
      await h.sandbox.drainNotifications();
    } finally {
      h.receiverStatus = () => 200;
    }
    expect(mine).toHaveLength(4);
    // Gaps follow 15 s, 15 s, 30 s scaled by the factor (lower bounds: polling only adds delay).
    for (let i = 1; i < 4; i++) {
      expect(mine[i]! - mine[i - 1]!, `gap ${i}`).toBeGreaterThanOrEqual(
        RETRY_SCHEDULE_S[i - 1]! * 1000 * FACTOR - 5,
      );
    }
    const [row] = await h.database.db
      .select()
      .from(sandbox_pay_notifications)
      .where(eq(sandbox_pay_notifications.out_trade_no, no));
    expect(row).toMatchObject({ attempts: 4, last_status: 204 });
    expect(row!.delivered_at).not.toBeNull();
  });
});

describe('delivery on a fast schedule', () => {
  // A separate sandbox: 24h4m x 0.00001 is under a second, and the receiver may take only 150 ms.
  let fast: ProtocolApp;
  beforeAll(async () => {
    fast = await createTestApp({
      ...PROTOCOL,
      wechat: { receiver: true, retryFactor: 0.00001, pollMs: 2, receiverTimeoutMs: 150 },
    });
  });
  afterAll(async () => {
    await fast?.close();
  });

  it('gives up after the 15 retries of the schedule (16 attempts in all)', async () => {
    fast.receiverStatus = () => 503;
    try {
      const no = tradeNo('G');
      const { prepay_id } = await fast.wechat.pay.prepayJsapi({
        out_trade_no: no,
        description: 'x',
        amount_fen: 1,
        openid: 'o',
      });
      await fast.sandbox.confirmPayment(prepay_id);
      await fast.sandbox.drainNotifications();
      const mine = fast.received.filter((r) => r.body.length > 0);
      expect(mine).toHaveLength(RETRY_SCHEDULE_S.length + 1);
      const [row] = await fast.database.db
        .select()
        .from(sandbox_pay_notifications)
        .where(eq(sandbox_pay_notifications.out_trade_no, no));
      expect(row).toMatchObject({ attempts: 16, last_status: 503, delivered_at: null });
      expect(row!.given_up_at).not.toBeNull();
    } finally {
      fast.receiverStatus = () => 200;
    }
  });

  it('counts an answer slower than the time limit as a failure and delivers again', async () => {
    const before = fast.received.length;
    fast.receiverDelayMs = 400;
    let calls = 0;
    fast.receiverStatus = () => {
      calls += 1;
      // Only the first delivery is slow.
      if (calls === 1) return 200;
      fast.receiverDelayMs = 0;
      return 200;
    };
    try {
      const no = tradeNo('S');
      const { prepay_id } = await fast.wechat.pay.prepayJsapi({
        out_trade_no: no,
        description: 'x',
        amount_fen: 1,
        openid: 'o',
      });
      await fast.sandbox.confirmPayment(prepay_id);
      await fast.sandbox.drainNotifications();
      expect(fast.received.length - before).toBeGreaterThanOrEqual(2);
      const [row] = await fast.database.db
        .select()
        .from(sandbox_pay_notifications)
        .where(eq(sandbox_pay_notifications.out_trade_no, no));
      expect(row!.attempts).toBeGreaterThanOrEqual(2);
      expect(row!.delivered_at).not.toBeNull();
    } finally {
      fast.receiverDelayMs = 0;
      fast.receiverStatus = () => 200;
    }
  });

  it('survives a restart: another sandbox instance on the same DB has the same keys and delivers the queue', async () => {
    const no = tradeNo('X');
    const { prepay_id } = await fast.wechat.pay.prepayJsapi({
      out_trade_no: no,
      description: 'x',
      amount_fen: 1,
      openid: 'o',
    });
    await fast.sandbox.confirmPayment(prepay_id, { delayMs: 300 });
    // The first instance goes away before the delivery is due.
    await fast.sandbox.stop();
    const second = await createWechatSandbox({
      publicUrl: fast.publicUrl,
      db: fast.database.db,
      notifyUrl: `${fast.publicUrl}/notify`,
      retryFactor: 0.00001,
      pollMs: 5,
    });
    try {
      expect(second.keys).toEqual(fast.sandbox.keys);
      second.start();
      await second.drainNotifications();
      const got = fast.received.filter((r) => {
        const n = fast.wechat.pay.parseNotification(r.body, r.headers);
        return n.kind === 'transaction' && n.transaction.out_trade_no === no;
      });
      expect(got).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
