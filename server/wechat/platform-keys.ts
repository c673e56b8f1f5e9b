/**
 * Which of the configured WeChat Pay platform keys encrypts sensitive fields (docs/wechat.md "Platform keys and
 * rotation"). WeChat adds a new platform certificate to the list a day before it replaces the old one and asks that
 * sensitive data be encrypted with the newest one, the certificate with the later effective time (WeChat Pay API v3,
 * 下载平台证书: "敏感信息加密时，建议使用最新的平台证书"). So:
 *
 * - a key given as an X.509 certificate carries its effective and expiry time: one expired or not yet effective is
 *   never used; among the valid ones the latest effective time wins (then the later expiry);
 * - a 微信支付公钥 (a bare public key, id `PUB_KEY_ID_…`) carries no time and does not expire: it replaces the
 *   platform certificates, so when one is configured it is used, the last configured one when there are several.
 *
 * Every configured key still verifies signatures: during a rotation answers and notifications come signed with either.
 */
import { X509Certificate } from 'node:crypto';

export interface PlatformKey {
  /** The certificate serial or `PUB_KEY_ID_…`: what `Wechatpay-Serial` names. */
  serial: string;
  pem: string;
}

interface Candidate extends PlatformKey {
  index: number;
  effective?: number;
  expires?: number;
}

function candidateOf(serial: string, pem: string, index: number): Candidate {
  if (!pem.includes('BEGIN CERTIFICATE')) return { serial, pem, index };
  const cert = new X509Certificate(pem);
  return {
    serial,
    pem,
    index,
    effective: Date.parse(cert.validFrom),
    expires: Date.parse(cert.validTo),
  };
}

/** The key to encrypt with at `now` (ms), or null when none is valid. */
export function newestPlatformKey(keys: Record<string, string>, now: number): PlatformKey | null {
  const all = Object.entries(keys).map(([serial, pem], i) => candidateOf(serial, pem, i));
  const bare = all.filter((k) => k.effective === undefined);
  const last = bare.at(-1);
  if (last) return { serial: last.serial, pem: last.pem };
  const valid = all.filter((k) => k.effective! <= now && now < k.expires!);
  valid.sort((a, b) => b.effective! - a.effective! || b.expires! - a.expires! || b.index - a.index);
  const best = valid[0];
  return best ? { serial: best.serial, pem: best.pem } : null;
}
