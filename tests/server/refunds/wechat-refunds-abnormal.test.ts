/**
 * A refund WeChat could not pay out (ABNORMAL: the member's card cancelled or frozen), redirected by staff with
 * WeChat's apply-abnormal-refund (docs/money.md "WeChat refunds"), on the real app, sandbox and database:
 * - to the member's debit card: the card number and name are encrypted for WeChat before they are stored (the
 *   sandbox decrypts them with the platform key, as WeChat does), the refund succeeds to that card and is booked
 *   as any refund to WeChat;
 * - to the merchant's bank account: the refund succeeds there and the member gets it on the wallet at the merchant;
 * - bad input answers 400 and changes nothing; another merchant 404; employees 403; not abnormal 409;
 * - a redirection WeChat refuses goes back to abnormal with WeChat's word, for staff to correct.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { audit_log, wallets, wechat_refunds } from '../../../server/db/schema';
import { redirectAbnormalRefund } from '../../../server/services/orders/refund-outbox';
import { rsaOaepDecrypt } from '../../../server/wechat/crypto';
import type { ConsumptionHistoryItem, Page } from '../../../src/domain/api';
import type { RefundRetryResult } from '../../../src/domain/refunds.schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { createOtherMerchant } from '../people/fixtures';
import { type PaidDevice, orderRow, payByWechat, refundsOf, sandboxRefundsOf } from './refund-helpers';
import { createTestApp, ONLINE_WORLD, type TestApp, withCookie } from '../test-app';

let w: TestApp<typeof ONLINE_WORLD>;
let ds: PaidDevice[];
let merchant: string;

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  ds = await demoDevices(w);
  await createOtherMerchant(w.deps.db, 'other');
  merchant = await w.login('merchant');
});
afterAll(async () => {
  await w?.close();
});

const redirect = (token: string, id: number, body: unknown) =>
  w.json<RefundRetryResult & { code?: string }>(`/backend/merchant/refunds/${id}/abnormal`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A WeChat pay whose device refuses, refunded to WeChat, which ends ABNORMAL. */
async function abnormalRefund(openid: string, device: PaidDevice) {
  const { cookie } = await w.signIn(openid);
  const paid = await payByWechat(w, cookie, device, { refuse: true, refundOutcome: 'abnormal' });
  await w.settle();
  const [row] = await refundsOf(w, paid.order_id);
  expect(row).toMatchObject({ status: 'abnormal', wechat_refund_id: expect.any(String) });
  return { cookie, paid, row: row! };
}

/** Lets the worker send the redirection and, once the query is due, ask WeChat how it ended. */
async function settleRedirection(refundId: number) {
  await w.settle();
  const [row] = await w.database.db.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId));
  expect(row!.status).toBe('processing');
  w.advance(31_000);
  await w.refunds.kick();
}

describe('an abnormal refund redirected to the member’s debit card', () => {
  it('stores only what WeChat can read, pays the card and books the refund once', async () => {
    const { cookie, paid, row } = await abnormalRefund('o-abnormal-card', ds[0]!);
    const history = async () =>
      (await w.json<Page<ConsumptionHistoryItem>>('/backend/user/consumption-history', withCookie(cookie)))
        .body.items[0]!;
    expect((await history()).wechat_refund).toMatchObject({ status: 'abnormal' });

    // Bad input: 400, nothing changes.
    const card = {
      type: 'USER_BANK_CARD',
      bank_type: 'CMB_DEBIT',
      bank_account: '6225 8801 2345 1234',
      real_name: '王小明',
    };
    for (const bad of [
      { ...card, bank_account: '12ab' },
      { ...card, real_name: ' ' },
      { ...card, bank_type: 'CMB_CREDIT' },
      { type: 'SOMEWHERE' },
    ]) {
      const res = await redirect(merchant, row.id, bad);
      expect(res.status).toBe(400);
      expect(res.body.code).toBeDefined();
    }
    // Not theirs or not allowed.
    expect((await redirect(await w.login('other'), row.id, card)).status).toBe(404);
    expect((await redirect(await w.login('employee'), row.id, card)).status).toBe(403);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('abnormal');

    const res = await redirect(merchant, row.id, card);
    expect(res.status).toBe(200);
    expect(res.body.refund).toMatchObject({ status: 'abnormal_pending', abnormal_type: 'USER_BANK_CARD' });
    const [stored] = await refundsOf(w, paid.order_id);
    // The card number and the name are stored encrypted for WeChat only: the sandbox's platform key reads them.
    expect(stored!.abnormal_bank_account).not.toContain('1234');
    expect(stored!.abnormal_real_name).not.toContain('王');
    const key = w.sandbox.keys.platformPrivateKey;
    expect(rsaOaepDecrypt(stored!.abnormal_bank_account!, key)).toBe('6225880123451234');
    expect(rsaOaepDecrypt(stored!.abnormal_real_name!, key)).toBe('王小明');
    expect(stored!.abnormal_key_serial).toBe(w.sandbox.keys.platformSerial);
    const [audit] = await w.database.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'refund.abnormal'));
    // Neither the card number nor any long run of it (order numbers are digits too, so a short run could be chance).
    const logged = JSON.stringify(audit).replace(/ /g, '');
    for (let i = 0; i + 8 <= 16; i++) expect(logged).not.toContain('6225880123451234'.slice(i, i + 8));
    expect(JSON.stringify(audit)).not.toContain('王小明');
    // Once redirected, it is no longer abnormal: a second redirection is refused.
    expect((await redirect(merchant, row.id, card)).status).toBe(409);

    await settleRedirection(row.id);
    expect((await refundsOf(w, paid.order_id))[0]).toMatchObject({ status: 'succeeded' });
    expect(await sandboxRefundsOf(w, paid.order_no)).toMatchObject([
      { status: 'SUCCESS', abnormal_type: 'USER_BANK_CARD', received_account: '招商银行借记卡1234' },
    ]);
    expect(await orderRow(w, paid.order_id)).toMatchObject({ refunded_fen: paid.amount_fen });
    expect((await history()).wechat_refund).toMatchObject({
      status: 'succeeded',
      abnormal_type: 'USER_BANK_CARD',
    });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('an abnormal refund redirected to the merchant’s bank account', () => {
  it('succeeds there and the member gets the amount on the wallet at the merchant', async () => {
    const { paid, row } = await abnormalRefund('o-abnormal-merchant', ds[1]!);
    const res = await redirect(merchant, row.id, { type: 'MERCHANT_BANK_CARD' });
    expect(res.status).toBe(200);
    await settleRedirection(row.id);
    expect((await refundsOf(w, paid.order_id))[0]).toMatchObject({ status: 'succeeded' });
    expect((await sandboxRefundsOf(w, paid.order_no))[0]).toMatchObject({
      received_account: '商户结算银行账户',
    });
    const order = await orderRow(w, paid.order_id);
    expect(order.refunded_fen).toBe(paid.amount_fen);
    const [wallet] = await w.database.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.member_id, order.member_id!), eq(wallets.merchant_id, order.merchant_id)));
    expect(wallet!.principal_fen).toBe(paid.amount_fen);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('a redirection WeChat refuses', () => {
  it('goes back to abnormal with WeChat’s word, for staff to correct', async () => {
    const { paid, row } = await abnormalRefund('o-abnormal-refused', ds[2]!);
    await w.database.db.transaction((tx) =>
      redirectAbnormalRefund(
        tx,
        row.id,
        {
          type: 'USER_BANK_CARD',
          bank_type: 'ICBC_DEBIT',
          bank_account: 'bm90IGVuY3J5cHRlZA==',
          real_name: 'bm90IGVuY3J5cHRlZA==',
          key_serial: w.sandbox.keys.platformSerial,
        },
        new Date(),
      ),
    );
    await w.refunds.kick();
    const [after] = await refundsOf(w, paid.order_id);
    expect(after).toMatchObject({ status: 'abnormal', last_error: expect.stringContaining('PARAM_ERROR') });
    expect((await orderRow(w, paid.order_id)).refunded_fen).toBe(0);
    // Staff correct it: the real card goes through.
    const card = {
      type: 'USER_BANK_CARD',
      bank_type: 'ICBC_DEBIT',
      bank_account: '6222020200112233',
      real_name: '李四',
    };
    expect((await redirect(merchant, row.id, card)).status).toBe(200);
    await settleRedirection(row.id);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('an abnormal refund while WeChat rotates its platform key', () => {
  it('encrypts the card with the newest key and names it in Wechatpay-Serial', async () => {
    // The earlier redirections moved the clock: the device beats at the current time, as it would.
    await w.devices.handle({ type: 'heartbeat', serials: [ds[3]!.serial], at: w.deps.now() });
    const { paid, row } = await abnormalRefund('o-abnormal-rotated', ds[3]!);
    const old = w.sandbox.keys;
    // WeChat adds a new key; the client is now configured with two, the new one after the old.
    const newSerial = await w.sandbox.rotatePlatformKey();
    expect(Object.keys(w.sandbox.payConfig.platformPublicKeys)).toEqual([old.platformSerial, newSerial]);
    const card = {
      type: 'USER_BANK_CARD',
      bank_type: 'ICBC_DEBIT',
      bank_account: '6222020200445566',
      real_name: '赵六',
    };
    expect((await redirect(merchant, row.id, card)).status).toBe(200);
    const [stored] = await refundsOf(w, paid.order_id);
    expect(stored!.abnormal_key_serial).toBe(newSerial);
    const newest = old.newerPlatform!.find((k) => k.serial === newSerial)!;
    expect(rsaOaepDecrypt(stored!.abnormal_bank_account!, newest.privateKey)).toBe('6222020200445566');
    expect(rsaOaepDecrypt(stored!.abnormal_real_name!, newest.privateKey)).toBe('赵六');
    expect(() => rsaOaepDecrypt(stored!.abnormal_bank_account!, old.platformPrivateKey)).toThrow();
    // WeChat reads it with the key the header names (the sandbox refuses a serial that does not match the key).
    await settleRedirection(row.id);
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    expect(await sandboxRefundsOf(w, paid.order_no)).toMatchObject([
      { status: 'SUCCESS', received_account: '工商银行借记卡5566' },
    ]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
