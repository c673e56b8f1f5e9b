/**
 * The device gateway over MQTT: the server is one more client of the broker (embedded or MQTT_URL). It publishes
 * commands to `scango/<serial>/cmd` and turns what devices publish (ack, heartbeat, event, status) into gateway
 * events. Heartbeats are batched (one DB write per burst). Several API instances may share a broker: each event is
 * applied idempotently by session id, and with `shared` (MQTT 5, e.g. Mosquitto) only one instance gets it.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { DeviceGateway, DeviceStatusReport, GatewayEvent, GatewayListener } from '../gateway';
import { parseCommandId } from '../lifecycle';
import { noDelay } from './no-delay';
import {
  Ack,
  decode,
  encode,
  Heartbeat,
  parseTopic,
  SessionEvent,
  SHARE_GROUP,
  Status,
  topicOf,
  type Command,
} from './protocol';

export interface MqttGatewayOptions {
  /** mqtt://, mqtts://, ws:// or wss://; credentials in the URL or below. */
  url: string;
  username?: string;
  password?: string;
  now: () => Date;
  /** Subscribe through the MQTT 5 shared group `$share/scango/` (needs a broker that supports it). */
  shared?: boolean;
  /** 4 = MQTT 3.1.1 (default), 5 = MQTT 5. */
  protocolVersion?: 4 | 5;
  /** How long heartbeats are gathered before one event is emitted; default 100 ms. */
  heartbeatBatchMs?: number;
  /** How long a command waits for the broker's PUBACK before the send is given up; default 5 s. */
  publishTimeoutMs?: number;
  /**
   * A client id of this server's own (MQTT_CLIENT_ID): its session is persistent, so what devices publish while
   * the server restarts waits at the broker. Each API instance needs a different one. None: a clean session.
   */
  clientId?: string;
  /** Extra client options (TLS CA, ...). */
  clientOptions?: IClientOptions;
}

export interface MqttGateway extends DeviceGateway {
  /** Serials seen online (heartbeat or status) since open; the embedded start-up waits for its fleet here. */
  readonly seen: ReadonlySet<string>;
  /** Payloads dropped because they did not parse (tests). */
  readonly dropped: number;
  /** Emits the heartbeats gathered so far now instead of at the end of the batch window. */
  flush(): void;
}

const KINDS = ['ack', 'heartbeat', 'event', 'status'] as const;

type Known = Map<string, { online: boolean; running: boolean }>;

/** What the message router needs: where to emit, the device states it keeps, the heartbeat batch. */
interface Router {
  emit(event: GatewayEvent): void;
  known: Known;
  seen: Set<string>;
  beat(serial: string): void;
  unbeat(serial: string): void;
  dropped(): void;
}

function onAck(r: Router, serial: string, payload: Buffer, at: Date) {
  const a = decode(Ack, payload);
  if (!a) return r.dropped();
  const command_id = `${a.cmd}-${a.session_id}`;
  if (a.result === 'ok') {
    if (a.cmd === 'start') r.known.set(serial, { online: true, running: true });
    return r.emit({ type: 'ack', serial, command_id, at });
  }
  r.emit({ type: 'refused', serial, command_id, reason: a.reason ?? '设备拒绝', at });
}

function onEvent(r: Router, serial: string, payload: Buffer, at: Date) {
  const e = decode(SessionEvent, payload);
  if (!e) return r.dropped();
  if (e.event === 'ended') {
    r.known.set(serial, { online: true, running: false });
    return r.emit({ type: 'ended', serial, session_id: e.session_id, at });
  }
  const message = e.message ?? `故障代码 ${e.code}`;
  r.emit({ type: 'fault', serial, session_id: e.session_id ?? null, code: e.code, message, at });
}

function onStatus(r: Router, serial: string, payload: Buffer, retained: boolean, at: Date) {
  const s = decode(Status, payload);
  if (!s) return r.dropped();
  if (!s.online) {
    r.known.set(serial, { online: false, running: false });
    r.unbeat(serial); // a heartbeat still in the batch is older than the will: it must not undo it
    return r.emit({ type: 'offline', serial, at });
  }
  // A retained "online" may be stale (a broker restarted without the will): heartbeats decide then.
  if (retained) return;
  r.seen.add(serial);
  r.known.set(serial, { online: true, running: false });
  r.emit({ type: 'online', serial, at });
}

/** Turns one message from a device topic into gateway events; a malformed one is counted and dropped. */
function routeMessage(r: Router, topic: string, payload: Buffer, retained: boolean, at: Date) {
  const t = parseTopic(topic);
  if (!t) return r.dropped();
  const { serial } = t;
  switch (t.kind) {
    case 'ack':
      return onAck(r, serial, payload, at);
    case 'heartbeat': {
      const h = decode(Heartbeat, payload);
      if (!h) return r.dropped();
      r.beat(serial);
      r.known.set(serial, { online: true, running: h.session_id != null });
      return;
    }
    case 'event':
      return onEvent(r, serial, payload, at);
    case 'status':
      return onStatus(r, serial, payload, retained, at);
    default:
      r.dropped();
  }
}

/** A QoS 1 publish that gives up when the broker's PUBACK does not come in time (its timer holds no process). */
async function publishWithin(client: MqttClient, topic: string, body: Buffer, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.publishAsync(topic, body, { qos: 1 }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no PUBACK within ${timeoutMs} ms`)), timeoutMs);
        timer.unref?.();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects the server's client with `onMessage` attached before the CONNACK: a persistent session's queued
 * messages follow the CONNACK at once and must not be acknowledged unheard.
 */
function connectServer(
  opts: MqttGatewayOptions,
  onMessage: (topic: string, payload: Buffer, retained: boolean) => void,
): Promise<MqttClient> {
  const persistent = opts.clientId !== undefined;
  const c = mqtt.connect(opts.url, {
    protocolVersion: opts.protocolVersion ?? 4,
    clientId: opts.clientId ?? `scango-server-${process.pid}-${Math.random().toString(16).slice(2, 10)}`,
    // With a client id of its own the session outlives the server: the broker keeps the subscriptions and queues
    // what devices publish while the server restarts.
    clean: !persistent,
    ...(persistent && opts.protocolVersion === 5
      ? { properties: { sessionExpiryInterval: SESSION_EXPIRY_S } }
      : {}),
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...(opts.username !== undefined ? { username: opts.username } : {}),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    ...opts.clientOptions,
  });
  noDelay(c);
  c.on('message', (topic, payload, packet) => onMessage(topic, payload, packet.retain));
  return new Promise((resolve, reject) => {
    const connected = () => {
      c.off('error', failed);
      resolve(c);
    };
    const failed = (err: Error) => {
      c.off('connect', connected);
      c.end(true);
      reject(err);
    };
    c.once('connect', connected);
    c.once('error', failed);
  });
}

async function subscribeAll(c: MqttClient, shared: boolean | undefined) {
  const prefix = shared ? `$share/${SHARE_GROUP}/` : '';
  const grants = await c.subscribeAsync(
    KINDS.map((k) => `${prefix}scango/+/${k}`),
    { qos: 1 },
  );
  const denied = grants.filter((g) => g.qos === 128);
  if (denied.length > 0) throw new Error(`MQTT gateway: subscription refused (${denied[0]!.topic})`);
}

/** How long a broker keeps the server's session (MQTT 5) while the server is away: a day. */
const SESSION_EXPIRY_S = 24 * 60 * 60;

/** Heartbeats gathered for `ms`, then emitted as one event (one DB write per burst). */
function heartbeatBatch(emit: (e: GatewayEvent) => void, now: () => Date, ms: number) {
  let beats = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (beats.size === 0) return;
    const serials = [...beats];
    beats = new Set();
    emit({ type: 'heartbeat', serials, at: now() });
  };
  return {
    flush,
    add(serial: string) {
      beats.add(serial);
      timer ??= setTimeout(flush, ms);
    },
    remove: (serial: string) => void beats.delete(serial),
  };
}

function emitterTo(listeners: Set<GatewayListener>) {
  return (event: GatewayEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (err) {
        console.error('device gateway listener failed:', err);
      }
    }
  };
}

export function createMqttGateway(opts: MqttGatewayOptions): MqttGateway {
  const listeners = new Set<GatewayListener>();
  const known: Known = new Map();
  const seen = new Set<string>();
  let client: MqttClient | null = null;
  let dropped = 0;
  const emit = emitterTo(listeners);
  const beats = heartbeatBatch(emit, opts.now, opts.heartbeatBatchMs ?? 100);
  const router: Router = {
    emit,
    known,
    seen,
    beat(serial) {
      seen.add(serial);
      beats.add(serial);
    },
    unbeat: beats.remove,
    dropped: () => void dropped++,
  };
  const send = (serial: string, command: Command) => {
    if (!client) throw new Error('MQTT gateway is not open');
    return publishWithin(client, topicOf(serial, 'cmd'), encode(command), opts.publishTimeoutMs ?? 5000);
  };
  const sessionOf = (command_id: string) => {
    const cmd = parseCommandId(command_id);
    if (!cmd) throw new Error(`bad command id ${command_id}`);
    return cmd.session_id;
  };

  return {
    kind: 'mqtt',
    seen,
    flush: beats.flush,
    get dropped() {
      return dropped;
    },
    start: (serial, minutes, command_id) =>
      send(serial, { cmd: 'start', session_id: sessionOf(command_id), minutes }),
    stop: (serial, command_id) => send(serial, { cmd: 'stop', session_id: sessionOf(command_id) }),
    async status(serial): Promise<DeviceStatusReport> {
      const k = known.get(serial);
      return { serial, online: k?.online ?? false, running: k?.running ?? false };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async open() {
      if (client) return;
      const c = await connectServer(opts, (topic, payload, retained) =>
        routeMessage(router, topic, payload, retained, opts.now()),
      );
      client = c;
      // Reconnects are automatic; the error text never contains the credentials.
      c.on('error', (err) => console.error(`MQTT gateway: ${err.message}`));
      await subscribeAll(c, opts.shared);
    },
    async close() {
      beats.flush();
      const c = client;
      client = null;
      if (c) await c.endAsync(true);
    },
  };
}
