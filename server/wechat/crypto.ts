/**
 * The cryptography of WeChat Pay API v3, on node:crypto only: SHA256withRSA (PKCS#1 v1.5) signatures in Base64,
 * AEAD_AES_256_GCM resources, the signed-message layouts and random nonces. Shared by the production client and the
 * sandbox, so both sides of every test run the very same code paths as production.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  createSign,
  createVerify,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  randomInt,
  type KeyObject,
} from 'node:crypto';

const ALPHANUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random [0-9A-Za-z] string (WeChat's SDKs use 32 chars for nonce_str, 12 for GCM nonces). */
export function nonceStr(length = 32): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHANUM[randomInt(ALPHANUM.length)];
  return s;
}

/**
 * Parsed keys by PEM text. Parsing a PEM costs several times the RSA verification itself (0.16 ms against 0.03 ms
 * here), and the same few keys (ours, the platform's) sign and verify every call and notification. The keys come
 * from configuration, never from a request; the bound only keeps a misuse from growing the map.
 */
const keys = new Map<string, KeyObject>();
function keyOf(pem: string, kind: 'public' | 'private'): KeyObject {
  let key = keys.get(pem);
  if (!key) {
    key = kind === 'public' ? createPublicKey(pem) : createPrivateKey(pem);
    if (keys.size >= 64) keys.clear();
    keys.set(pem, key);
  }
  return key;
}

/** Base64 SHA256withRSA signature of `message` with a PEM private key. */
export function rsaSign(message: string, privateKeyPem: string): string {
  return createSign('RSA-SHA256').update(message, 'utf8').sign(keyOf(privateKeyPem, 'private'), 'base64');
}

/** Verifies a Base64 SHA256withRSA signature; false (never throws) on malformed input. */
export function rsaVerify(message: string, signatureB64: string, publicKeyPem: string): boolean {
  try {
    return createVerify('RSA-SHA256')
      .update(message, 'utf8')
      .verify(keyOf(publicKeyPem, 'public'), signatureB64, 'base64');
  } catch {
    return false;
  }
}

/** `METHOD\nURL\nTS\nNONCE\nBODY\n`: what the merchant signs for the Authorization header. */
export function requestMessage(
  method: string,
  canonicalUrl: string,
  timestamp: string,
  nonce: string,
  body: string,
) {
  return `${method}\n${canonicalUrl}\n${timestamp}\n${nonce}\n${body}\n`;
}

/** `TS\nNONCE\nBODY\n`: what WeChat Pay signs on responses and notifications. */
export function responseMessage(timestamp: string, nonce: string, body: string) {
  return `${timestamp}\n${nonce}\n${body}\n`;
}

/** `appId\ntimeStamp\nnonceStr\npackage\n`: the JSAPI paySign message. */
export function paySignMessage(appId: string, timeStamp: string, nonce: string, pkg: string) {
  return `${appId}\n${timeStamp}\n${nonce}\n${pkg}\n`;
}

export const AUTH_SCHEMA = 'WECHATPAY2-SHA256-RSA2048';

/** Parses `WECHATPAY2-SHA256-RSA2048 mchid="…",nonce_str="…",…` into its fields (key order is free). */
export function parseAuthorization(header: string): Record<string, string> | null {
  if (!header.startsWith(`${AUTH_SCHEMA} `)) return null;
  const out: Record<string, string> = {};
  const re = /([a-z_]+)="([^"]*)"/g;
  for (const m of header.slice(AUTH_SCHEMA.length + 1).matchAll(re)) out[m[1]!] = m[2]!;
  return out;
}

/** A sensitive field for WeChat Pay (a card number, a name): RSAES-OAEP (SHA-1, MGF1) with its public key, Base64. */
export function rsaOaepEncrypt(plaintext: string, publicKeyPem: string): string {
  return publicEncrypt(
    { key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    Buffer.from(plaintext, 'utf8'),
  ).toString('base64');
}

/** What WeChat Pay does with such a field (the sandbox, holding the private key). */
export function rsaOaepDecrypt(ciphertextB64: string, privateKeyPem: string): string {
  return privateDecrypt(
    { key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    Buffer.from(ciphertextB64, 'base64'),
  ).toString('utf8');
}

/** AES-256-GCM encryption as WeChat Pay does it: Base64(ciphertext || 16-byte tag). */
export function aesGcmEncrypt(
  plaintext: string,
  apiV3Key: string,
  nonce: string,
  associatedData: string,
): string {
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'));
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([ct, cipher.getAuthTag()]).toString('base64');
}

/** Decrypts a notification resource; throws when the key, nonce, AAD or ciphertext do not authenticate. */
export function aesGcmDecrypt(
  ciphertextB64: string,
  apiV3Key: string,
  nonce: string,
  associatedData: string,
): string {
  const raw = Buffer.from(ciphertextB64, 'base64');
  if (raw.length < 17) throw new Error('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}

/** Random hex id (sandbox transaction ids, request ids). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** RFC3339 in China time with no milliseconds (`2026-01-02T03:04:05+08:00`), as WeChat Pay wants it. */
export function rfc3339China(date: Date): string {
  const shifted = new Date(date.getTime() + 8 * 3600_000);
  return `${shifted.toISOString().slice(0, 19)}+08:00`;
}

/** Reads one header from a Headers object or a plain record (case-insensitive). */
export function headerValue(
  headers: Headers | Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}
