/**
 * Per-device MQTT secrets (docs/device-protocol.md, "Credentials"). A secret is 32 random bytes (base64url, 43
 * characters), shown once and stored only as its SHA-256: a secret of 256 random bits cannot be guessed or
 * brute-forced from its hash, so a slow password hash (scrypt) would add nothing but cost on every device connect,
 * which a broker restart multiplies by the whole fleet at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { devices } from '../../db/schema';

export const newDeviceSecret = (): string => randomBytes(32).toString('base64url');

export const hashDeviceSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string | null | undefined): boolean {
  if (!storedHash || secret.length === 0 || secret.length > 256) return false;
  const a = Buffer.from(hashDeviceSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `secret` is the current secret of the device `serial` (the broker's authentication). */
export async function verifyDeviceSecret(db: Db, serial: string, secret: string): Promise<boolean> {
  const [d] = await db
    .select({ secret_hash: devices.secret_hash, status: devices.status })
    .from(devices)
    .where(eq(devices.serial, serial));
  // A device disabled on its page is refused, as the dynamic security sync refuses it on an external Mosquitto.
  return d?.status !== 'disabled' && secretMatches(secret, d?.secret_hash);
}

/**
 * A new secret for one device, issued by staff (inside the caller's transaction, with its audit row); returns the
 * plain secret. From then on the secret belongs to the hardware it is entered into, and stays until staff rotate
 * it: the built-in simulator stands in only for devices without one (`simulatedSerials`).
 */
export async function rotateDeviceSecret(tx: Tx | Db, device_id: number, at: Date): Promise<string> {
  const secret = newDeviceSecret();
  await tx
    .update(devices)
    .set({ secret_hash: hashDeviceSecret(secret), secret_rotated_at: at })
    .where(eq(devices.id, device_id));
  return secret;
}

/** Serial, status and secret hash of every device (or one): what the broker's dynamic security must reflect. */
export async function credentialRows(db: Db, serial?: string) {
  const q = db
    .select({ serial: devices.serial, status: devices.status, secret_hash: devices.secret_hash })
    .from(devices);
  return serial === undefined ? q : q.where(eq(devices.serial, serial));
}

/**
 * The devices the built-in simulator may stand in for: those staff never issued a secret. The simulator holds
 * secrets of its own for them in memory, checked by the embedded broker in-process; it writes none to the DB.
 */
export async function simulatedSerials(db: Db): Promise<string[]> {
  const rows = await db.select({ serial: devices.serial }).from(devices).where(isNull(devices.secret_hash));
  return rows.map((r) => r.serial);
}

/**
 * Issues secrets for many devices at once, as a factory does before shipping (the MQTT tests and the bench provision
 * their devices this way, e.g. for Mosquitto's password file). Returns serial -> secret.
 */
export async function provisionSecrets(db: Db, serials: string[], at: Date): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < serials.length; i += 200) {
    const pairs = serials.slice(i, i + 200).map((serial) => ({ serial, secret: newDeviceSecret() }));
    for (const p of pairs) out.set(p.serial, p.secret);
    const cases = sql.join(
      pairs.map((p) => sql`when ${p.serial} then ${hashDeviceSecret(p.secret)}`),
      sql` `,
    );
    await db
      .update(devices)
      .set({ secret_hash: sql`case ${devices.serial} ${cases} end`, secret_rotated_at: at })
      .where(
        inArray(
          devices.serial,
          pairs.map((p) => p.serial),
        ),
      );
  }
  return out;
}
