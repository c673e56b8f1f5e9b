/**
 * WeChat Pay v3: the production WechatPayClient against the Pay sandbox over real loopback HTTP — signed prepay,
 * SIGN_ERROR on tampering, paySign, query, close, refunds, the cashier, and verification of the sandbox's answers.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paySignMessage, rsaVerify } from '../../../server/wechat/crypto';
import { WechatPayClient } from '../../../server/wechat/pay';
import { WechatPayError, WechatPayVerifyError } from '../../../server/wechat/types';
import { createTestApp } from '../test-app';
import { PROTOCOL, type ProtocolApp, tradeNo } from './wechat-harness';

let h: ProtocolApp;

beforeAll(async () => {
  h = await createTestApp(PROTOCOL);
});
afterAll(async () => {
  await h?.close();
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

const order = (no: string, amount = 350) => ({
  out_trade_no: no,
  description: '充电桩-30分钟',
  amount_fen: amount,
  openid: 'oPayer1',
  attach: 'consume',
});

describe('prepay (POST /v3/pay/transactions/jsapi)', () => {
  it('is signed, accepted, idempotent for identical parameters and OUT_TRADE_NO_USED on drift', async () => {
    const no = tradeNo();
    const { prepay_id } = await h.wechat.pay.prepayJsapi({
      ...order(no),
      time_expire: new Date(Date.now() + 15 * 60_000),
    });
    expect(prepay_id).toMatch(/^wx\d{14}[0-9a-f]{20}$/);

    const tx = await h.wechat.pay.queryByOutTradeNo(no);
    expect(tx).toMatchObject({
      appid: h.sandbox.keys.appid,
      mchid: h.sandbox.keys.mchid,
      out_trade_no: no,
      trade_state: 'NOTPAY',
      payer: { openid: 'oPayer1' },
      amount: { total: 350 },
    });
    expect(tx?.transaction_id).toBeUndefined();

    // Changed parameters under the same out_trade_no: 403 OUT_TRADE_NO_USED.
    expect(await rejection(h.wechat.pay.prepayJsapi(order(no)))).toMatchObject({
      status: 403,
      code: 'OUT_TRADE_NO_USED',
    });
    const drift = await rejection(h.wechat.pay.prepayJsapi({ ...order(no), amount_fen: 1 }));
    expect(drift).toBeInstanceOf(WechatPayError);
    expect(drift).toMatchObject({ status: 403, code: 'OUT_TRADE_NO_USED' });
  });

  it('returns the same prepay_id for an identical retry', async () => {
    const no = tradeNo();
    const a = await h.wechat.pay.prepayJsapi(order(no));
    const b = await h.wechat.pay.prepayJsapi(order(no));
    expect(b.prepay_id).toBe(a.prepay_id);
  });

  it('answers 401 SIGN_ERROR to a tampered signature, a foreign key or a stale timestamp', async () => {
    const url = `${h.sandbox.payConfig.apiBase}/v3/pay/transactions/jsapi`;
    const canonical = new URL(url).pathname;
    const body = JSON.stringify({
      appid: h.sandbox.keys.appid,
      mchid: h.sandbox.keys.mchid,
      description: 'x',
      out_trade_no: tradeNo(),
      notify_url: `${h.publicUrl}/notify`,
      amount: { total: 1 },
      payer: { openid: 'o1' },
    });
    const send = (authorization: string, sent = body) =>
      fetch(url, {
        method: 'POST',
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body: sent,
      });

    // Signed over one body, sent with another (amount changed in flight).
    const tampered = await send(
      h.wechat.pay.authorization('POST', canonical, body),
      body.replace('"total":1', '"total":100'),
    );
    expect(tampered.status).toBe(401);
    expect(await tampered.json()).toMatchObject({ code: 'SIGN_ERROR' });

    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const impostor = new WechatPayClient({ ...h.sandbox.payConfig, merchantPrivateKey: privateKey });
    const foreign = await rejection(impostor.prepayJsapi(order(tradeNo())));
    expect(foreign).toMatchObject({ status: 401, code: 'SIGN_ERROR' });

    const late = new WechatPayClient({ ...h.sandbox.payConfig, now: () => Date.now() - 6 * 60_000 });
    expect(await rejection(late.prepayJsapi(order(tradeNo())))).toMatchObject({
      status: 401,
      code: 'SIGN_ERROR',
    });

    const missing = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(missing.status).toBe(401);

    // Nothing was created by any of them.
    expect(await h.wechat.pay.queryByOutTradeNo(JSON.parse(body).out_trade_no)).toBeNull();
  });

  it('validates fields: PARAM_ERROR with detail, APPID_MCHID_NOT_MATCH', async () => {
    const bad = await rejection(h.wechat.pay.prepayJsapi({ ...order('ab'), out_trade_no: 'ab' }));
    expect(bad).toMatchObject({
      status: 400,
      code: 'PARAM_ERROR',
      detail: { location: 'body', value: 'ab' },
    });
    expect((bad as Error).message).toContain('/body/out_trade_no');

    const longDesc = await rejection(
      h.wechat.pay.prepayJsapi({ ...order(tradeNo()), description: '长'.repeat(128) }),
    );
    expect(longDesc).toMatchObject({ status: 400, code: 'PARAM_ERROR' });

    const otherApp = new WechatPayClient({ ...h.sandbox.payConfig, appid: 'wx0000000000000001' });
    expect(await rejection(otherApp.prepayJsapi(order(tradeNo())))).toMatchObject({
      status: 400,
      code: 'APPID_MCHID_NOT_MATCH',
    });

    const withQuery = new WechatPayClient({ ...h.sandbox.payConfig, notifyUrl: `${h.publicUrl}/notify?x=1` });
    expect(await rejection(withQuery.prepayJsapi(order(tradeNo())))).toMatchObject({ code: 'PARAM_ERROR' });
  });
});

describe('answers are verified by the client', () => {
  it('refuses a sandbox answer under an unknown serial or the wrong platform key', async () => {
    const no = tradeNo();
    await h.wechat.pay.prepayJsapi(order(no));
    const unknownSerial = new WechatPayClient({
      ...h.sandbox.payConfig,
      platformPublicKeys: { PUB_KEY_ID_OTHER: h.sandbox.keys.platformPublicKey },
    });
    expect(await rejection(unknownSerial.queryByOutTradeNo(no))).toMatchObject({ reason: 'UNKNOWN_SERIAL' });
    const wrongKey = new WechatPayClient({
      ...h.sandbox.payConfig,
      platformPublicKeys: { [h.sandbox.keys.platformSerial]: h.sandbox.keys.merchantPublicKey },
    });
    const e = await rejection(wrongKey.queryByOutTradeNo(no));
    expect(e).toBeInstanceOf(WechatPayVerifyError);
    expect(e).toMatchObject({ reason: 'BAD_SIGNATURE' });
  });
});

describe('JSAPI parameters', () => {
  it('carry a paySign over appId, timeStamp, nonceStr, package made with the merchant key', async () => {
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(tradeNo()));
    const p = h.wechat.pay.jsapiParams(prepay_id);
    expect(p.appId).toBe(h.sandbox.keys.appid);
    expect(p.timeStamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(p.timeStamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(p.nonceStr).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(p.package).toBe(`prepay_id=${prepay_id}`);
    expect(p.signType).toBe('RSA');
    const message = `${p.appId}\n${p.timeStamp}\n${p.nonceStr}\n${p.package}\n`;
    expect(paySignMessage(p.appId, p.timeStamp, p.nonceStr, p.package)).toBe(message);
    expect(rsaVerify(message, p.paySign, h.sandbox.keys.merchantPublicKey)).toBe(true);
    expect(
      rsaVerify(message.replace('prepay_id', 'prepay_iD'), p.paySign, h.sandbox.keys.merchantPublicKey),
    ).toBe(false);
  });
});

describe('query and close', () => {
  it('query answers null for an unknown order; close makes it CLOSED (204) and it can no longer be paid', async () => {
    expect(await h.wechat.pay.queryByOutTradeNo('NOSUCHORDER1')).toBeNull();
    const no = tradeNo();
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(no));
    await h.wechat.pay.close(no);
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({
      trade_state: 'CLOSED',
      trade_state_desc: '订单已关闭',
    });
    expect(await rejection(h.sandbox.confirmPayment(prepay_id))).toMatchObject({ code: 'ORDER_CLOSED' });
    expect(await rejection(h.wechat.pay.close('NOSUCHORDER1'))).toMatchObject({
      status: 404,
      code: 'ORDER_NOT_EXIST',
    });
  });
});

describe('cashier', () => {
  it('shows the amount, and 确认支付 pays, notifies notify_url and returns with order_no', async () => {
    const no = tradeNo('C');
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(no, 1234));
    const params = h.wechat.pay.jsapiParams(prepay_id);
    const cashier = h.sandbox.cashierUrl(params, '/user/pay?device_id=3&venue_id=1');
    expect(cashier.startsWith('/backend/sandbox/wechatpay/cashier?')).toBe(true);

    const pageRes = await fetch(`${h.publicUrl}${cashier}`);
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain('¥12.34');
    expect(html).toContain('充电桩-30分钟');
    expect(html).toContain('确认支付');
    expect(html).toContain('取消');

    const before = h.received.length;
    const form = new URLSearchParams({ ...params, return: '/user/pay?device_id=3&venue_id=1' });
    const confirm = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/cashier/confirm`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get('location')).toBe(`/user/pay?device_id=3&venue_id=1&order_no=${no}`);

    await h.sandbox.drainNotifications();
    const mine = h.received.slice(before);
    expect(mine).toHaveLength(1);
    const n = h.wechat.pay.parseNotification(mine[0]!.body, mine[0]!.headers);
    if (n.kind !== 'transaction') throw new Error('expected a transaction notification');
    expect(n.event_type).toBe('TRANSACTION.SUCCESS');
    expect(n.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(n.transaction).toMatchObject({
      out_trade_no: no,
      trade_state: 'SUCCESS',
      trade_type: 'JSAPI',
      attach: 'consume',
      payer: { openid: 'oPayer1' },
      amount: { total: 1234, payer_total: 1234, currency: 'CNY' },
    });
    expect(n.transaction.transaction_id).toMatch(/^4200\d{24}$/);
    expect(n.transaction.success_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);

    const queried = await h.wechat.pay.queryByOutTradeNo(no);
    expect(queried).toMatchObject({ trade_state: 'SUCCESS', transaction_id: n.transaction.transaction_id });
    // The same transaction by WeChat's id, through a signed GET of the v3 API.
    const byIdPath = `/v3/pay/transactions/id/${n.transaction.transaction_id}?mchid=${h.sandbox.keys.mchid}`;
    const byIdUrl = `${h.sandbox.payConfig.apiBase}${byIdPath}`;
    const byId = await fetch(byIdUrl, {
      headers: {
        Authorization: h.wechat.pay.authorization(
          'GET',
          new URL(byIdUrl).pathname + new URL(byIdUrl).search,
          '',
        ),
      },
    });
    expect(byId.status).toBe(200);
    expect(byId.headers.get('wechatpay-serial')).toBe(h.sandbox.keys.platformSerial);
    expect(await byId.json()).toMatchObject({ out_trade_no: no, trade_state: 'SUCCESS' });

    // Confirming again (a double tap) sends nothing new.
    const twice = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/cashier/confirm`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(twice.status).toBe(303);
    await h.sandbox.drainNotifications();
    expect(h.received.length - before).toBe(1);
  });

  it('refuses a tampered paySign or a foreign return path and pays nothing; 取消 returns with pay=cancel', async () => {
    const no = tradeNo('C');
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(no, 500));
    const params = h.wechat.pay.jsapiParams(prepay_id);
    const forged = { ...params, paySign: h.wechat.pay.jsapiParams(`${prepay_id}x`).paySign };
    const page = await fetch(`${h.publicUrl}${h.sandbox.cashierUrl(forged, '/user/pay')}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('paySign');
    const post = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/cashier/confirm`, {
      method: 'POST',
      body: new URLSearchParams({ ...forged, return: '/user/pay' }),
      redirect: 'manual',
    });
    expect(post.status).toBe(400);
    for (const ret of ['//evil.example/x', 'https://evil.example/', '/\\evil']) {
      const r = await fetch(`${h.publicUrl}${h.sandbox.cashierUrl(params, ret)}`);
      expect(r.status, ret).toBe(400);
    }
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({ trade_state: 'NOTPAY' });

    const cancel = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/cashier/cancel`, {
      method: 'POST',
      body: new URLSearchParams({ ...params, return: '/user/profile' }),
      redirect: 'manual',
    });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe(`/user/profile?order_no=${no}&pay=cancel`);
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({ trade_state: 'NOTPAY' });
  });
});

describe('test switches', () => {
  it('the cashier passes notify switches on; POST _control confirms with the signed JSAPI parameters only', async () => {
    const no = tradeNo('W');
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(no, 900));
    const before = h.received.length;
    const form = new URLSearchParams({
      ...h.wechat.pay.jsapiParams(prepay_id),
      return: '/user/pay',
      notify: 'duplicate',
    });
    const res = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/cashier/confirm`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    await h.sandbox.drainNotifications();
    expect(h.received.length - before).toBe(2);

    const other = tradeNo('W');
    const otherPrepay = await h.wechat.pay.prepayJsapi(order(other, 100));
    // Knowing the order number is not enough: only the signed JSAPI parameters of the member's page confirm.
    const byNumber = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/_control`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'confirm', out_trade_no: other }),
    });
    expect(byNumber.status).toBe(400);
    expect(await h.wechat.pay.queryByOutTradeNo(other)).toMatchObject({ trade_state: 'NOTPAY' });
    const forged = { ...h.wechat.pay.jsapiParams(otherPrepay.prepay_id), paySign: 'AAAA' };
    const badSign = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/_control`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'confirm', ...forged }),
    });
    expect(badSign.status).toBe(401);
    const ctl = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/_control`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        action: 'confirm',
        ...h.wechat.pay.jsapiParams(otherPrepay.prepay_id),
        wrong_amount_fen: 7,
      }),
    });
    expect(ctl.status).toBe(200);
    expect(await ctl.json()).toMatchObject({ transaction: { out_trade_no: other, trade_state: 'SUCCESS' } });
    await h.sandbox.drainNotifications();
    const last = h.received.at(-1)!;
    const n = h.wechat.pay.parseNotification(last.body, last.headers);
    expect(n).toMatchObject({
      kind: 'transaction',
      transaction: { out_trade_no: other, amount: { total: 7 } },
    });

    for (const body of ['x', 'null', '[]']) {
      const junk = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/_control`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(junk.status).toBe(400);
    }
    const plain = await fetch(`${h.publicUrl}/backend/sandbox/wechatpay/_control`, {
      method: 'POST',
      body: 'x',
    });
    expect(plain.status).toBe(415);
  });
});

describe('refunds', () => {
  it('refunds up to the paid amount, answers PROCESSING, settles, and sends a REFUND.SUCCESS notification', async () => {
    const no = tradeNo('R');
    const { prepay_id } = await h.wechat.pay.prepayJsapi(order(no, 1000));
    await h.sandbox.confirmPayment(prepay_id);
    await h.sandbox.drainNotifications();
    const before = h.received.length;

    const r = await h.wechat.pay.refund({
      out_trade_no: no,
      out_refund_no: `${no}R1`,
      refund_fen: 600,
      total_fen: 1000,
    });
    expect(r).toMatchObject({
      out_refund_no: `${no}R1`,
      status: 'PROCESSING',
      amount: { refund: 600, total: 1000 },
    });
    // Same out_refund_no again (a retry): the same refund, no second deduction.
    expect(
      await h.wechat.pay.refund({
        out_trade_no: no,
        out_refund_no: `${no}R1`,
        refund_fen: 600,
        total_fen: 1000,
      }),
    ).toMatchObject({ refund_id: r.refund_id });
    expect(await h.wechat.pay.queryRefund(`${no}R1`)).toMatchObject({
      status: 'SUCCESS',
      refund_id: r.refund_id,
    });
    expect(await h.wechat.pay.queryRefund('NOPE')).toBeNull();

    const over = await rejection(
      h.wechat.pay.refund({ out_trade_no: no, out_refund_no: `${no}R2`, refund_fen: 401, total_fen: 1000 }),
    );
    expect(over).toMatchObject({ status: 403, code: 'NOT_ENOUGH' });
    expect(await h.wechat.pay.queryByOutTradeNo(no)).toMatchObject({ trade_state: 'REFUND' });

    await h.sandbox.drainNotifications();
    const mine = h.received.slice(before);
    expect(mine).toHaveLength(1);
    const n = h.wechat.pay.parseNotification(mine[0]!.body, mine[0]!.headers);
    expect(n).toMatchObject({
      kind: 'refund',
      event_type: 'REFUND.SUCCESS',
      refund: {
        out_trade_no: no,
        out_refund_no: `${no}R1`,
        refund_status: 'SUCCESS',
        amount: { refund: 600 },
      },
    });

    const unpaid = tradeNo('R');
    await h.wechat.pay.prepayJsapi(order(unpaid, 100));
    expect(
      await rejection(
        h.wechat.pay.refund({
          out_trade_no: unpaid,
          out_refund_no: `${unpaid}R`,
          refund_fen: 1,
          total_fen: 100,
        }),
      ),
    ).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
