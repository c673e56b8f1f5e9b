/**
 * The sandbox's notification sender: builds WeChat Pay v3 notifications (AES-256-GCM encrypted resource, envelope,
 * Wechatpay-* signature headers with the platform key) and delivers them from the `sandbox_pay_notifications` queue
 * with WeChat's retry schedule, compressed by a factor for tests. The queue lives in the DB, so a restart or a
 * second instance continues where the first one stopped; a row is claimed by a conditional update before sending.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sandbox_pay_notifications } from '../db/schema';
import {
  AUTH_SCHEMA,
  aesGcmEncrypt,
  nonceStr,
  randomHex,
  responseMessage,
  rfc3339China,
  rsaSign,
} from '../wechat/crypto';
import type { FetchLike, NotificationEnvelope } from '../wechat/types';
import type { SandboxKeys } from './keys';

/** WeChat's schedule after a failed delivery: 15s/15s/30s/3m/10m/20m/30m/30m/30m/60m/3h/3h/3h/6h/6h (24h4m). */
export const RETRY_SCHEDULE_S = [
  15,
  15,
  30,
  180,
  600,
  1200,
  1800,
  1800,
  1800,
  3600,
  3 * 3600,
  3 * 3600,
  3 * 3600,
  6 * 3600,
  6 * 3600,
];

/** WeChat treats an answer slower than 5 s as a failure. */
const RECEIVER_TIMEOUT_MS = 5000;

export type SignatureMode = 'valid' | 'probe' | 'bad';

export interface SignedNotification {
  body: string;
  headers: Record<string, string>;
}

export interface NotifierOptions {
  db: Db;
  keys: SandboxKeys;
  fetch: FetchLike;
  now: () => number;
  /** Multiplies every retry delay (1 = real time; tests use e.g. 0.001). */
  retryFactor: number;
  /** How often the queue is polled for due deliveries (ms). */
  pollMs: number;
  /** A slower answer counts as a failure (WeChat: 5 s). */
  receiverTimeoutMs?: number;
}

/** Owns building, signing and delivering sandbox notifications. */
export class NotificationSender {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** The last error of a delivery pass (for diagnostics). */
  lastError: unknown;

  constructor(private readonly o: NotifierOptions) {}

  /** The JSON envelope with `resource` encrypted under the APIv3 key (AAD = original_type, as WeChat does). */
  envelope(
    resource: object,
    eventType: string,
    originalType: 'transaction' | 'refund',
    summary: string,
  ): NotificationEnvelope {
    const nonce = nonceStr(12);
    const plaintext = JSON.stringify(resource);
    return {
      id: randomUUID(),
      create_time: rfc3339China(new Date(this.o.now())),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: {
        original_type: originalType,
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: aesGcmEncrypt(plaintext, this.o.keys.apiV3Key, nonce, originalType),
        associated_data: originalType,
        nonce,
      },
    };
  }

  /** Signs a body as WeChat does (`TS\nNONCE\nBODY\n`), or with a SIGNTEST probe / a corrupted signature. */
  sign(body: string, mode: SignatureMode = 'valid', timestampOffsetS = 0): SignedNotification {
    const timestamp = String(Math.floor(this.o.now() / 1000) + timestampOffsetS);
    const nonce = nonceStr(32);
    let signature = rsaSign(responseMessage(timestamp, nonce, body), this.o.keys.platformPrivateKey);
    if (mode === 'probe') signature = `WECHATPAY/SIGNTEST/${signature}`;
    if (mode === 'bad')
      signature = rsaSign(responseMessage(timestamp, nonce, `${body} `), this.o.keys.platformPrivateKey);
    return {
      body,
      headers: {
        'Content-Type': 'application/json',
        'Request-ID': randomHex(16),
        'Wechatpay-Timestamp': timestamp,
        'Wechatpay-Nonce': nonce,
        'Wechatpay-Signature': signature,
        'Wechatpay-Serial': this.o.keys.platformSerial,
        'Wechatpay-Signature-Type': AUTH_SCHEMA,
      },
    };
  }

  /** Queues a delivery; `delayMs` postpones the first attempt. */
  async enqueue(
    n: {
      body: string;
      notifyUrl: string;
      outTradeNo: string;
      notificationId: string;
      kind?: 'normal' | 'probe';
    },
    delayMs = 0,
  ): Promise<void> {
    await this.o.db.insert(sandbox_pay_notifications).values({
      notification_id: n.notificationId,
      out_trade_no: n.outTradeNo,
      notify_url: n.notifyUrl,
      body: n.body,
      kind: n.kind ?? 'normal',
      next_attempt_at: new Date(this.o.now() + delayMs),
    });
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.kick(), this.o.pollMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Runs one pass over the due deliveries (at most one pass at a time per instance). */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.pass()
      .catch((e: unknown) => {
        // A failed pass (DB busy or closing) is retried on the next tick; keep the timer alive.
        this.lastError = e;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Resolves when nothing is left to deliver (every row delivered or given up), or after `timeoutMs`. */
  async drain(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.kick();
      const [row] = await this.o.db
        .select({ n: sql<number>`count(*)::int` })
        .from(sandbox_pay_notifications)
        .where(
          and(isNull(sandbox_pay_notifications.delivered_at), isNull(sandbox_pay_notifications.given_up_at)),
        );
      if (!row || Number(row.n) === 0) return;
      if (Date.now() > deadline) throw new Error('sandbox notifications still pending');
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(this.o.pollMs, 50))));
    }
  }

  private async pass(): Promise<void> {
    const t = sandbox_pay_notifications;
    const now = new Date(this.o.now());
    const due = await this.o.db
      .select()
      .from(t)
      .where(and(isNull(t.delivered_at), isNull(t.given_up_at), lte(t.next_attempt_at, now)))
      .orderBy(t.id)
      .limit(50);
    await Promise.all(
      due.map(async (row) => {
        // Claim: only the instance whose update matches the attempt count it read sends this attempt; the lease
        // keeps others off while the receiver has its 5 s.
        const claimed = await this.o.db
          .update(t)
          .set({
            attempts: row.attempts + 1,
            next_attempt_at: new Date(
              this.o.now() + (this.o.receiverTimeoutMs ?? RECEIVER_TIMEOUT_MS) + 1000,
            ),
          })
          .where(and(eq(t.id, row.id), eq(t.attempts, row.attempts), isNull(t.delivered_at)))
          .returning({ id: t.id });
        if (claimed.length === 0) return;
        await this.deliver(row, row.attempts + 1);
      }),
    );
  }

  private async deliver(row: typeof sandbox_pay_notifications.$inferSelect, attempt: number): Promise<void> {
    const t = sandbox_pay_notifications;
    const signed = this.sign(row.body, row.kind === 'probe' ? 'probe' : 'valid');
    let status = 0;
    let error: string | null = null;
    try {
      const res = await this.o.fetch(row.notify_url, {
        method: 'POST',
        headers: { ...signed.headers, 'User-Agent': 'Mozilla/4.0' },
        body: signed.body,
        signal: AbortSignal.timeout(this.o.receiverTimeoutMs ?? RECEIVER_TIMEOUT_MS),
      });
      status = res.status;
      await res.text().catch(() => '');
    } catch (e) {
      error = (e as Error).message;
    }
    if (this.stopped) return;
    const ok = status >= 200 && status < 300;
    const delayS = RETRY_SCHEDULE_S[attempt - 1];
    // A probe is fire-and-forget: its failure is the expected answer.
    const giveUp = !ok && (row.kind === 'probe' || delayS === undefined);
    await this.o.db
      .update(t)
      .set({
        last_status: status || null,
        last_error: error ?? (ok ? null : `HTTP ${status}`),
        ...(ok ? { delivered_at: new Date(this.o.now()) } : {}),
        ...(giveUp ? { given_up_at: new Date(this.o.now()) } : {}),
        ...(!ok && !giveUp
          ? { next_attempt_at: new Date(this.o.now() + delayS! * 1000 * this.o.retryFactor) }
          : {}),
      })
      .where(eq(t.id, row.id));
  }
}
