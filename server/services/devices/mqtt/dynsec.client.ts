/**
 * A client of Mosquitto's dynamic security plugin (docs/device-protocol.md, "Mosquitto with the dynamic security
 * plugin"): JSON commands published to `$CONTROL/dynamic-security/v1`, answers read on `.../response`, matched by
 * `correlationData`. It connects on its own (the MQTT_URL credentials, which must be a dynsec admin), beside the
 * gateway's connection, with a client id of its own. Command answers carry the plugin's error strings, which never
 * contain a password; callers still never put a command (it may hold one) into a log line or an error.
 */
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { noDelay } from './no-delay';

export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
const RESPONSE_TOPIC = `${DYNSEC_TOPIC}/response`;

export type DynsecCommand = { command: string } & Record<string, unknown>;
export interface DynsecAnswer {
  command: string;
  error?: string;
  data?: Record<string, unknown>;
}

export interface DynsecClient {
  /** Sends the commands in one message; the plugin runs them in order. Answers in the same order. */
  send(commands: DynsecCommand[]): Promise<DynsecAnswer[]>;
  /** Sends without waiting for the answer (a command that makes the broker drop this very connection). */
  post(commands: DynsecCommand[]): Promise<void>;
  close(force?: boolean): Promise<void>;
}

/** An error of the plugin or of its connection; its message never holds a command's fields. */
export class DynsecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DynsecError';
  }
}

export async function connectDynsec(
  url: string,
  opts: { timeoutMs?: number; clientOptions?: mqtt.IClientOptions } = {},
): Promise<DynsecClient> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const client: MqttClient = await mqtt.connectAsync(url, {
    clientId: `scango-dynsec-${randomBytes(6).toString('hex')}`,
    clean: true,
    reconnectPeriod: 2_000,
    connectTimeout: timeoutMs,
    ...opts.clientOptions,
  });
  noDelay(client);
  const pending = new Map<string, (answers: DynsecAnswer[]) => void>();
  client.on('message', (topic, payload) => {
    if (topic !== RESPONSE_TOPIC) return;
    let body: { responses?: (DynsecAnswer & { correlationData?: string })[] };
    try {
      body = JSON.parse(payload.toString('utf8')) as typeof body;
    } catch {
      return;
    }
    const id = body.responses?.[0]?.correlationData;
    const done = id === undefined ? undefined : pending.get(id);
    if (!done) return;
    pending.delete(id!);
    done(body.responses!);
  });
  const granted = await client.subscribeAsync(RESPONSE_TOPIC, { qos: 1 });
  if (granted[0] && granted[0].qos > 2) {
    await client.endAsync(true);
    throw new DynsecError('the MQTT_URL user may not read the dynamic security answers (not a dynsec admin)');
  }

  return {
    async send(commands) {
      if (commands.length === 0) return [];
      const id = randomBytes(9).toString('base64url');
      const answered = new Promise<DynsecAnswer[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new DynsecError(`no answer from the dynamic security plugin within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, (answers) => {
          clearTimeout(timer);
          resolve(answers);
        });
      });
      const payload = JSON.stringify({ commands: commands.map((c) => ({ ...c, correlationData: id })) });
      try {
        await client.publishAsync(DYNSEC_TOPIC, payload, { qos: 1 });
      } catch (err) {
        pending.delete(id);
        throw new DynsecError(`sending to the dynamic security plugin failed: ${(err as Error).message}`);
      }
      const answers = await answered;
      if (answers.length !== commands.length) {
        throw new DynsecError(`the dynamic security plugin answered ${answers.length} of ${commands.length}`);
      }
      return answers;
    },
    async post(commands) {
      await client.publishAsync(DYNSEC_TOPIC, JSON.stringify({ commands }), { qos: 1 });
    },
    async close(force = false) {
      for (const [, done] of pending) done([]);
      pending.clear();
      await client.endAsync(force);
    },
  };
}

/** The first error among answers, except those `ok` says are fine (e.g. "already exists"); as a DynsecError. */
export function firstError(answers: DynsecAnswer[], ok: (a: DynsecAnswer) => boolean = () => false) {
  const bad = answers.find((a) => a.error !== undefined && !ok(a));
  return bad ? new DynsecError(`dynamic security ${bad.command}: ${bad.error}`) : undefined;
}
