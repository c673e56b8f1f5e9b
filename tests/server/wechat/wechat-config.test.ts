/**
 * createWechat: sandbox by default, a partial live configuration refused, and live mode being nothing but
 * configuration — pointed at the sandbox's URLs and keys, the live-mode clients pay and sign in over real HTTP.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWechat } from '../../../server/sandbox/wechat-sandbox';
import { PAY_NOTIFY_PATH, type WechatEnv } from '../../../server/wechat/config';
import { rsaOaepDecrypt } from '../../../server/wechat/crypto';
import { createTestApp } from '../test-app';
import { PROTOCOL, type ProtocolApp, tradeNo } from './wechat-harness';

let h: ProtocolApp;

beforeAll(async () => {
  h = await createTestApp(PROTOCOL);
});
afterAll(async () => {
  await h?.close();
});

function liveEnv(h: ProtocolApp, tmp: string): WechatEnv {
  const keyFile = path.join(tmp, 'apiclient_key.pem');
  fs.writeFileSync(keyFile, h.sandbox.keys.merchantPrivateKey);
  return {
    PUBLIC_URL: 'https://pay.example.com',
    WECHAT_APPID: h.sandbox.keys.appid,
    WECHAT_SECRET: h.sandbox.keys.secret,
    WECHAT_MCHID: h.sandbox.keys.mchid,
    WECHAT_MCH_SERIAL: h.sandbox.keys.merchantSerialNo,
    // A path for one key and escaped-newline PEM text for the other: both forms are accepted.
    WECHAT_MCH_PRIVATE_KEY: keyFile,
    WECHAT_APIV3_KEY: h.sandbox.keys.apiV3Key,
    WECHAT_PLATFORM_PUBLIC_KEY: h.sandbox.keys.platformPublicKey.replace(/\n/g, '\\n'),
    WECHAT_PLATFORM_PUBLIC_KEY_ID: h.sandbox.keys.platformSerial,
    WECHAT_OAUTH_AUTHORIZE_BASE: `${h.publicUrl}/backend/sandbox/wechat`,
    WECHAT_API_BASE: `${h.publicUrl}/backend/sandbox/wechat`,
    WECHAT_PAY_API_BASE: `${h.publicUrl}/backend/sandbox/wechatpay`,
  };
}

describe('createWechat', () => {
  it('runs the sandbox when no credential is configured', async () => {
    const w = await createWechat({ PUBLIC_URL: h.publicUrl }, { db: h.database.db, sandbox: { pollMs: 50 } });
    try {
      expect(w.mode).toBe('sandbox');
      expect(w.sandboxRoutes).toBeDefined();
      // Same DB, same shared credentials as the harness's sandbox.
      expect(w.oauth.appid).toBe(h.sandbox.keys.appid);
      const url = w.oauth.authorizeUrl({
        redirectUri: `${h.publicUrl}/cb`,
        scope: 'snsapi_base',
        state: 's1',
        sandboxOpenid: 'oCfg',
      });
      expect(url.startsWith(`${h.publicUrl}/backend/sandbox/wechat/connect/oauth2/authorize?appid=`)).toBe(
        true,
      );
      const { prepay_id } = await w.pay.prepayJsapi({
        out_trade_no: tradeNo('CFG'),
        description: 'x',
        amount_fen: 1,
        openid: 'oCfg',
      });
      expect(prepay_id).toMatch(/^wx/);
    } finally {
      await w.sandbox?.stop();
    }
  });

  it('refuses to fall into the sandbox on a PostgreSQL deployment without credentials, unless told to', async () => {
    const pgEnv = { PUBLIC_URL: h.publicUrl, DATABASE_URL: 'postgres://u@127.0.0.1:5432/prod' };
    await expect(createWechat(pgEnv, { db: h.database.db })).rejects.toThrow(/WECHAT_SANDBOX=true/);
    await expect(
      createWechat({ PUBLIC_URL: h.publicUrl, WECHAT_SANDBOX: false }, { db: h.database.db }),
    ).rejects.toThrow(/未配置微信凭据/);
    const w = await createWechat(
      { ...pgEnv, WECHAT_SANDBOX: true },
      { db: h.database.db, sandbox: { pollMs: 50 } },
    );
    try {
      expect(w.mode).toBe('sandbox');
    } finally {
      await w.sandbox?.stop();
    }
  });

  it('with the embedded DB, runs the sandbox by default only when PUBLIC_URL is a loopback address', async () => {
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:9000', 'http://[::1]:8080']) {
      const w = await createWechat({ PUBLIC_URL: url }, { db: h.database.db, sandbox: { pollMs: 50 } });
      try {
        expect(w.mode, url).toBe('sandbox');
      } finally {
        await w.sandbox?.stop();
      }
    }
    for (const url of ['https://pay.example.com', 'http://192.168.1.20:8080', 'http://10.0.0.5']) {
      await expect(createWechat({ PUBLIC_URL: url }, { db: h.database.db }), url).rejects.toThrow(
        /不是本机回环地址.*WECHAT_SANDBOX=true/,
      );
    }
    const told = await createWechat(
      { PUBLIC_URL: 'https://staging.example.com', WECHAT_SANDBOX: true },
      { db: h.database.db, sandbox: { pollMs: 50 } },
    );
    try {
      expect(told.mode).toBe('sandbox');
    } finally {
      await told.sandbox?.stop();
    }
  });

  it('reads PUBLIC_URL on use (a server on port 0 learns it after listening)', async () => {
    const env: WechatEnv = { PUBLIC_URL: 'http://localhost:0' };
    const w = await createWechat(env, { db: h.database.db });
    try {
      env.PUBLIC_URL = h.publicUrl;
      const no = tradeNo('LZ');
      await w.pay.prepayJsapi({ out_trade_no: no, description: 'x', amount_fen: 1, openid: 'o' });
      expect(await h.sandbox.payService.byOutTradeNo(no)).toMatchObject({
        notify_url: `${h.publicUrl}${PAY_NOTIFY_PATH}`,
      });
    } finally {
      await w.sandbox?.stop();
    }
  });

  it('refuses a partial live configuration, naming what is missing', async () => {
    await expect(
      createWechat(
        { PUBLIC_URL: h.publicUrl, WECHAT_APPID: 'wx1', WECHAT_SECRET: 's' },
        { db: h.database.db },
      ),
    ).rejects.toThrow(/微信配置不完整.*WECHAT_MCHID/);
  });

  it('live mode is configuration only: the same clients work against any endpoint speaking the protocol', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wechat-cfg-'));
    try {
      const env = liveEnv(h, tmp);
      await expect(
        createWechat({ ...env, WECHAT_NOTIFY_URL: 'http://insecure.example/notify' }, { db: h.database.db }),
      ).rejects.toThrow(/https/);
      await expect(
        createWechat({ ...env, WECHAT_APIV3_KEY: 'short' }, { db: h.database.db }),
      ).rejects.toThrow(/32/);

      const w = await createWechat(env, { db: h.database.db });
      expect(w.mode).toBe('live');
      expect(w.sandboxRoutes).toBeUndefined();
      expect(w.sandbox).toBeUndefined();
      // No sandbox hint leaks into a live authorize URL.
      const url = w.oauth.authorizeUrl({
        redirectUri: `${h.publicUrl}/cb`,
        scope: 'snsapi_base',
        state: 'live1',
        sandboxOpenid: 'oX',
      });
      expect(url).not.toContain('sandbox_openid');

      const no = tradeNo('LIVE');
      const { prepay_id } = await w.pay.prepayJsapi({
        out_trade_no: no,
        description: '充值',
        amount_fen: 2000,
        openid: 'oL',
      });
      expect(await h.sandbox.payService.byOutTradeNo(no)).toMatchObject({
        notify_url: `https://pay.example.com${PAY_NOTIFY_PATH}`,
        amount_total: 2000,
      });
      await h.sandbox.confirmPayment(prepay_id, { silent: true });
      expect(await w.pay.queryByOutTradeNo(no)).toMatchObject({
        trade_state: 'SUCCESS',
        amount: { total: 2000 },
      });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('trusts a second platform key during a rotation and encrypts with the newer one', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wechat-cfg-'));
    try {
      const env = liveEnv(h, tmp);
      const next = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      await expect(
        createWechat({ ...env, WECHAT_PLATFORM_PUBLIC_KEY_2: next.publicKey }, { db: h.database.db }),
      ).rejects.toThrow(/WECHAT_PLATFORM_PUBLIC_KEY_ID_2/);
      const w = await createWechat(
        {
          ...env,
          WECHAT_PLATFORM_PUBLIC_KEY_2: next.publicKey,
          WECHAT_PLATFORM_PUBLIC_KEY_ID_2: 'PUB_KEY_ID_NEXT',
        },
        { db: h.database.db },
      );
      const out = w.pay.encryptSensitive(['6222020200445566']);
      expect(out.serial).toBe('PUB_KEY_ID_NEXT');
      expect(rsaOaepDecrypt(out.ciphertexts[0]!, next.privateKey)).toBe('6222020200445566');
      // The first key still verifies: the sandbox signs its answers with it.
      const no = tradeNo('ROT');
      await w.pay.prepayJsapi({ out_trade_no: no, description: '充值', amount_fen: 100, openid: 'oR' });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
