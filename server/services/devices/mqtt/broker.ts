/**
 * The embedded MQTT broker (aedes 2 beta: MQTT 3.1.1 and MQTT 5, decision D23 in docs/decisions.md) that
 * `npm start` runs in-process on MQTT_PORT. It authenticates every client (a device: username = serial, password =
 * its secret, checked against the stored hash; the server: its own username and secret; a refusal is CONNACK 4, or
 * 0x86 under MQTT 5) and applies the per-device ACL of protocol.ts: a publish outside the client's own topics is
 * answered with PUBACK 0x87 under MQTT 5 and closes the connection under MQTT 3.1.1 (which cannot refuse a
 * publish), a subscription outside them is refused in the SUBACK. Nothing here logs a password.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import { mayPublish, maySubscribe, SERVER_USERNAME } from './protocol';

export interface EmbeddedBrokerOptions {
  port: number;
  host: string;
  /** The server's broker secret (username SERVER_USERNAME). */
  serverSecret: string;
  /** Whether `secret` is the device's current secret. */
  verifyDevice: (serial: string, secret: string) => Promise<boolean>;
}

export interface EmbeddedBroker {
  /** `mqtt://host:port` without credentials. */
  url: string;
  port: number;
  /** Disconnects every client signed in as `username` (a rotated secret takes effect at once). */
  kick(username: string): void;
  /** Connection attempts refused for bad credentials (tests, bench). */
  readonly refused: number;
  close(): Promise<void>;
}

const BAD_CREDENTIALS = 4;

function authError(): AuthenticateError {
  const err = new Error('用户名或密钥错误') as AuthenticateError;
  err.returnCode = BAD_CREDENTIALS as AuthenticateError['returnCode'];
  return err;
}

const usernames = new WeakMap<Client, string>();

export async function startEmbeddedBroker(opts: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const serverSecret = Buffer.from(opts.serverSecret);
  let refused = 0;
  const aedes = await Aedes.createBroker({
    // A device that stops reading must not stall delivery to the others.
    drainTimeout: 10_000,
    // Messages in flight before the emitter queues them (aedes: 100). Its queue drains by recursion, which
    // overflowed the stack with thousands of devices publishing at once (docs/performance.md, MQTT).
    concurrency: 2000,
    authenticate(client, username, password, done) {
      const secret = password ? Buffer.from(password) : Buffer.alloc(0);
      if (!username) {
        refused++;
        return done(authError(), false);
      }
      if (username === SERVER_USERNAME) {
        const ok = secret.length === serverSecret.length && timingSafeEqual(secret, serverSecret);
        if (ok) usernames.set(client, username);
        else refused++;
        return ok ? done(null, true) : done(authError(), false);
      }
      opts.verifyDevice(username, secret.toString('utf8')).then(
        (ok) => {
          if (ok) usernames.set(client, username);
          else refused++;
          done(ok ? null : authError(), ok);
        },
        () => {
          refused++;
          done(authError(), false);
        },
      );
    },
    authorizePublish(client, packet, callback) {
      const user = client ? usernames.get(client) : undefined;
      // client is null only for a will left over from a previous broker life: it was authorized when registered.
      if (client === null) return callback(null);
      // The protocol is QoS 1 throughout. Refusing QoS 2 here, before aedes stores the packet to await its PUBREL,
      // also caps what one client can make the broker hold (aedes 1.2's maxInflightInbound; the 2.0 beta lacks it).
      if (packet.qos === 2) return callback(new Error('QoS 2 not used'));
      if (user && mayPublish(user, packet.topic)) return callback(null);
      callback(new Error('topic not allowed'));
    },
    authorizeSubscribe(client, sub, callback) {
      const user = usernames.get(client);
      callback(null, user && maySubscribe(user, sub.topic) ? sub : null);
    },
  });
  // A client dropping its connection is routine (a device losing power); aedes reports it as an error event.
  aedes.on('clientError', () => {});
  aedes.on('connectionError', () => {});

  // TCP_NODELAY: MQTT packets are small, and Nagle's algorithm held each behind the peer's delayed ACK (no-delay.ts).
  const server = net.createServer({ noDelay: true }, (socket) => aedes.handle(socket));
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve((server.address() as net.AddressInfo).port));
  });
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  const clients = (aedes as unknown as { clients: Record<string, Client> }).clients;

  return {
    url: `mqtt://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    get refused() {
      return refused;
    },
    kick(username) {
      for (const c of Object.values(clients)) if (usernames.get(c) === username) c.close();
    },
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
