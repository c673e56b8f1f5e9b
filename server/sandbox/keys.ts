/**
 * Sandbox credentials: the merchant key pair (the sandbox verifies request signatures and paySign with its public
 * half), the platform key pair (the sandbox signs answers and notifications), their serials, the APIv3 key, the
 * appid/secret and the mchid. Generated once and kept in `sandbox_keys`, so every instance on the same DB, and the
 * same instance after a restart, share them.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sandbox_keys } from '../db/schema';
import { nonceStr } from '../wechat/crypto';

export interface SandboxKeys {
  appid: string;
  secret: string;
  mchid: string;
  merchantSerialNo: string;
  merchantPrivateKey: string;
  merchantPublicKey: string;
  platformSerial: string;
  platformPrivateKey: string;
  platformPublicKey: string;
  apiV3Key: string;
  /**
   * Platform keys WeChat added later (a rotation, `rotatePlatformKey`), oldest first: the client is configured with
   * them after the first, and WeChat reads a sensitive field encrypted with any of them by its serial.
   */
  newerPlatform?: PlatformKeyPair[];
}

export interface PlatformKeyPair {
  serial: string;
  privateKey: string;
  publicKey: string;
}

const generate = promisify(generateKeyPair);

async function rsaPair(): Promise<{ publicKey: string; privateKey: string }> {
  return generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** A `PUB_KEY_ID_…` in the shape of WeChat's (digits between a fixed prefix and suffix). */
const pubKeyId = () => `PUB_KEY_ID_0119${Array.from(randomBytes(14), (b) => String(b % 10)).join('')}0000`;

/** A fresh platform key pair, as WeChat adds one when it rotates its keys. */
export async function generatePlatformKey(): Promise<PlatformKeyPair> {
  const pair = await rsaPair();
  return { serial: pubKeyId(), ...pair };
}

/** Every platform key of the sandbox by serial, in the order they were added (the first is the signing key). */
export function platformKeysOf(keys: SandboxKeys): PlatformKeyPair[] {
  return [
    { serial: keys.platformSerial, privateKey: keys.platformPrivateKey, publicKey: keys.platformPublicKey },
    ...(keys.newerPlatform ?? []),
  ];
}

/** Fresh sandbox credentials (2048-bit RSA pairs, a random 32-byte APIv3 key). */
export async function generateSandboxKeys(): Promise<SandboxKeys> {
  const [merchant, platform] = await Promise.all([rsaPair(), rsaPair()]);
  return {
    // Same shapes as the real ones: wx + 16 hex, a 10-digit mchid, a 40-hex certificate serial, a PUB_KEY_ID.
    appid: `wx${randomBytes(8).toString('hex')}`,
    secret: randomBytes(16).toString('hex'),
    mchid: '1900000109',
    merchantSerialNo: randomBytes(20).toString('hex').toUpperCase(),
    merchantPrivateKey: merchant.privateKey,
    merchantPublicKey: merchant.publicKey,
    platformSerial: pubKeyId(),
    platformPrivateKey: platform.privateKey,
    platformPublicKey: platform.publicKey,
    apiV3Key: nonceStr(32),
  };
}

/** Loads the shared sandbox credentials, creating them on first use (first writer wins across instances). */
export async function loadSandboxKeys(db: Db, name = 'default'): Promise<SandboxKeys> {
  const existing = await db.select().from(sandbox_keys).where(eq(sandbox_keys.name, name));
  if (existing[0]) return existing[0].value as unknown as SandboxKeys;
  const fresh = await generateSandboxKeys();
  await db
    .insert(sandbox_keys)
    .values({ name, value: fresh as unknown as Record<string, string> })
    .onConflictDoNothing();
  const row = await db.select().from(sandbox_keys).where(eq(sandbox_keys.name, name));
  return row[0]!.value as unknown as SandboxKeys;
}
