/**
 * Which configured WeChat Pay platform key encrypts sensitive fields (server/wechat/platform-keys.ts): the newest
 * valid certificate (latest effective time, never an expired or not yet effective one), a 微信支付公钥 before any
 * certificate, the last configured of those. Through the production client's `encryptSensitive`, with real
 * certificates of fixed validity (tests/server/wechat/fixtures/platform-certs) and real RSA-OAEP.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rsaOaepDecrypt } from '../../../server/wechat/crypto';
import { WechatPayClient } from '../../../server/wechat/pay';
import { newestPlatformKey } from '../../../server/wechat/platform-keys';

const dir = path.join(__dirname, 'fixtures', 'platform-certs');
const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
const cert = {
  expired: read('expired.crt'),
  current: read('current.crt'),
  newer: read('newer.crt'),
  future: read('future.crt'),
};
const at = (iso: string) => Date.parse(iso);

function client(platformPublicKeys: Record<string, string>, now: number) {
  return new WechatPayClient({
    appid: 'wx0000000000000000',
    mchid: '1900000109',
    merchantSerialNo: 'MERCHANT',
    merchantPrivateKey: 'unused here',
    apiV3Key: '0123456789abcdef0123456789abcdef',
    platformPublicKeys,
    apiBase: 'http://127.0.0.1:9',
    notifyUrl: 'http://127.0.0.1:9/notify',
    now: () => now,
  });
}

const bare = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

describe('the key sensitive fields are encrypted with', () => {
  it('is the valid certificate with the latest effective time, whatever the configured order', () => {
    const keys = { NEWER: cert.newer, EXPIRED: cert.expired, CURRENT: cert.current, FUTURE: cert.future };
    const out = client(keys, at('2026-11-23T12:00:00Z')).encryptSensitive(['6222020200445566', '赵六']);
    expect(out.serial).toBe('NEWER');
    const key = read('newer.key');
    expect(out.ciphertexts.map((c) => rsaOaepDecrypt(c, key))).toEqual(['6222020200445566', '赵六']);
  });

  it('skips a certificate not yet effective and one expired', () => {
    const keys = { CURRENT: cert.current, NEWER: cert.newer, EXPIRED: cert.expired };
    // Before the newer one takes effect, the current one; after the current one expired, the newer one.
    expect(newestPlatformKey(keys, at('2025-06-01T00:00:00Z'))?.serial).toBe('CURRENT');
    expect(newestPlatformKey(keys, at('2036-06-01T00:00:00Z'))?.serial).toBe('NEWER');
    expect(
      newestPlatformKey({ EXPIRED: cert.expired, FUTURE: cert.future }, at('2026-01-02T00:00:00Z')),
    ).toBe(null);
    expect(() =>
      client({ EXPIRED: cert.expired }, at('2026-01-02T00:00:00Z')).encryptSensitive(['x']),
    ).toThrow(/no valid WeChat Pay platform key/);
  });

  it('is a 微信支付公钥 before any certificate, the last configured one of two', () => {
    const first = bare();
    const second = bare();
    const keys = {
      PUB_KEY_ID_1: first.publicKey,
      CURRENT: cert.current,
      PUB_KEY_ID_2: second.publicKey,
    };
    const out = client(keys, at('2026-11-23T12:00:00Z')).encryptSensitive(['6225880123451234']);
    expect(out.serial).toBe('PUB_KEY_ID_2');
    expect(rsaOaepDecrypt(out.ciphertexts[0]!, second.privateKey)).toBe('6225880123451234');
    expect(() => rsaOaepDecrypt(out.ciphertexts[0]!, first.privateKey)).toThrow();
  });
});
