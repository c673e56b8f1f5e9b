/**
 * One simulated device, an MQTT client exactly as real hardware would be (docs/device-protocol.md): it connects
 * with its serial and secret and a retained last will, announces itself online, subscribes to its command topic,
 * acknowledges commands after a short delay, sends heartbeats and reports the end of each run. Its mode makes it
 * refuse, stay silent, or lose power (the connection drops without DISCONNECT, so the broker publishes the will).
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { DeviceMode } from '../gateway';
import { noDelay } from './no-delay';
import { Command, decode, encode, offlineWill, topicOf, type Ack, type Heartbeat } from './protocol';

export interface SimDeviceOptions {
  url: string;
  serial: string;
  secret: string;
  mode: () => DeviceMode;
  now: () => Date;
  ackDelayMs: number;
  heartbeatMs: number;
  /** 4 = MQTT 3.1.1 (default), 5 = MQTT 5. */
  protocolVersion?: 4 | 5;
}

export interface SimDevice {
  readonly serial: string;
  /** Connects and publishes `online` and a first heartbeat; rejects when the broker refuses the credentials. */
  connect(): Promise<void>;
  /** Power loss: the connection drops without DISCONNECT (the broker publishes the last will). */
  drop(): Promise<void>;
  /** A clean shutdown (server stopping): DISCONNECT, so no will. */
  close(): Promise<void>;
  readonly connected: boolean;
}

/** Session ids a device remembers, so a command redelivered after its run is acknowledged, not run again. */
const REMEMBER = 64;

type Kind = 'ack' | 'heartbeat' | 'event' | 'status';

/** The run of the device: at most one session at a time, and the sessions it ran lately. */
class Run {
  current: { session_id: number; until: number; timer: NodeJS.Timeout } | null = null;
  readonly done: number[] = [];

  constructor(
    private readonly now: () => Date,
    private readonly publish: (kind: Kind, body: unknown) => void,
  ) {}

  /** The running session, ended first if its time is up. */
  active() {
    if (this.current && this.current.until <= this.now().getTime()) this.finish();
    return this.current;
  }

  begin(session_id: number, minutes: number) {
    const ms = minutes * 60_000;
    const timer = setTimeout(() => this.finish(true), ms);
    timer.unref?.();
    this.current = { session_id, until: this.now().getTime() + ms, timer };
  }

  finish(report = false) {
    if (!this.current) return;
    clearTimeout(this.current.timer);
    const { session_id } = this.current;
    this.current = null;
    this.done.push(session_id);
    if (this.done.length > REMEMBER) this.done.shift();
    if (report) this.publish('event', { event: 'ended', session_id });
  }

  /** Power lost: the run is gone without a report. */
  abort() {
    if (this.current) clearTimeout(this.current.timer);
    this.current = null;
  }

  heartbeat(): Heartbeat {
    const r = this.active();
    return r
      ? { session_id: r.session_id, remaining_s: Math.ceil((r.until - this.now().getTime()) / 1000) }
      : { session_id: null };
  }

  /** The answer to a command; idempotent by session id (a redelivered start is acknowledged, never run twice). */
  answer(command: Command, mode: DeviceMode): { result: Ack['result']; reason?: string } {
    if (command.cmd === 'stop') {
      if (this.active()?.session_id === command.session_id) this.finish();
      return { result: 'ok' };
    }
    if (mode === 'refuse') return { result: 'refused', reason: '设备故障，拒绝启动' };
    const r = this.active();
    if (r?.session_id === command.session_id || this.done.includes(command.session_id))
      return { result: 'ok' };
    if (r) return { result: 'refused', reason: '设备正在运行' };
    this.begin(command.session_id, command.minutes);
    return { result: 'ok' };
  }
}

/**
 * `fn` after `firstMs`, then every `periodMs`. The heartbeats start at a random point of their period, so a fleet
 * connected in one burst beats spread over the period, as devices powered on at different times do, not all in the
 * same few seconds.
 */
function periodic(firstMs: number, periodMs: number, fn: () => void): { stop(): void } {
  let timer: NodeJS.Timeout = setTimeout(() => {
    fn();
    timer = setInterval(fn, periodMs);
    timer.unref?.();
  }, firstMs);
  timer.unref?.();
  // clearInterval clears a timeout too (one id space): the first call's or the period's.
  return { stop: () => clearInterval(timer) };
}

function clientOptions(opts: SimDeviceOptions): IClientOptions {
  return {
    protocolVersion: opts.protocolVersion ?? 4,
    clientId: opts.serial,
    username: opts.serial,
    password: opts.secret,
    clean: true,
    // The fleet reconnects the device itself at its next refresh; a refused connect must not loop.
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    will: offlineWill(opts.serial),
  };
}

export function createSimDevice(opts: SimDeviceOptions): SimDevice {
  let client: MqttClient | null = null;
  const timers = new Set<NodeJS.Timeout>();
  let beats: { stop(): void } | null = null;

  const publish = (kind: Kind, body: unknown, retain = false) =>
    client?.publishAsync(topicOf(opts.serial, kind), encode(body), { qos: 1, retain }).catch(() => {});
  const run = new Run(opts.now, (kind, body) => void publish(kind, body));

  const later = (fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, opts.ackDelayMs);
    t.unref?.();
    timers.add(t);
  };

  function onCommand(payload: Buffer) {
    const command = decode(Command, payload);
    const mode = opts.mode();
    if (!command || mode === 'silent' || mode === 'offline') return;
    later(() => {
      const { result, reason } = run.answer(command, opts.mode());
      void publish('ack', { cmd: command.cmd, session_id: command.session_id, result, reason });
    });
  }

  function stopTimers() {
    beats?.stop();
    beats = null;
    for (const t of timers) clearTimeout(t);
    timers.clear();
  }

  async function connect() {
    if (client) return;
    const c = noDelay(await mqtt.connectAsync(opts.url, clientOptions(opts)));
    client = c;
    c.on('message', (_topic, payload) => onCommand(payload));
    c.on('error', () => {});
    // A connection lost by itself (broker gone, connection dropped by the broker): the fleet reconnects later.
    c.on('close', () => {
      if (client !== c) return;
      client = null;
      stopTimers();
      void c.endAsync(true);
    });
    await c.subscribeAsync(topicOf(opts.serial, 'cmd'), { qos: 1 });
    await publish('status', { online: true, fw: 'sim-1.0' }, true);
    await publish('heartbeat', run.heartbeat());
    beats = periodic(Math.random() * opts.heartbeatMs, opts.heartbeatMs, () => {
      void publish('heartbeat', run.heartbeat());
    });
  }

  return {
    serial: opts.serial,
    get connected() {
      return client?.connected ?? false;
    },
    connect,
    async drop() {
      stopTimers();
      run.abort();
      const c = client;
      client = null;
      if (c) await c.endAsync(true);
    },
    async close() {
      stopTimers();
      run.abort();
      const c = client;
      client = null;
      if (c) await c.endAsync(false).catch(() => c.endAsync(true));
    },
  };
}
