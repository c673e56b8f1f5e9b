/**
 * The embedded device simulator: the default gateway, so the whole product runs on one machine. Every device in
 * the database is simulated; each acknowledges commands after a short delay and sends heartbeats, and can be told
 * to refuse, stay silent or go offline (tests, and the sandbox control endpoint).
 */
import type {
  ControllableGateway,
  DeviceMode,
  DeviceStatusReport,
  GatewayEvent,
  GatewayListener,
} from './gateway';

export interface SimulatorOptions {
  /** The serials to keep online (read at every heartbeat, so devices added later come online too). */
  listSerials: () => Promise<string[]>;
  /** Delay before a command is answered; default 300 ms. */
  ackDelayMs?: number;
  /** Heartbeat period; default 30 s (well under the 90 s online window). */
  heartbeatMs?: number;
  now?: () => Date;
}

export function createSimulatorGateway(opts: SimulatorOptions): ControllableGateway {
  const ackDelayMs = opts.ackDelayMs ?? 300;
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const now = opts.now ?? (() => new Date());
  const listeners = new Set<GatewayListener>();
  const modes = new Map<string, DeviceMode>();
  /** serial -> the start command it is running and until when. */
  const running = new Map<string, { command_id: string; until: number }>();
  const timers = new Set<NodeJS.Timeout>();
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let open = false;

  const emit = (event: GatewayEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (err) {
        console.error('device gateway listener failed:', err);
      }
    }
  };

  const later = (fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ackDelayMs);
    t.unref?.();
    timers.add(t);
  };

  const modeOf = (serial: string): DeviceMode => modes.get(serial) ?? 'normal';

  const isRunning = (serial: string) => {
    const r = running.get(serial);
    if (r && r.until > now().getTime()) return r;
    running.delete(serial);
    return undefined;
  };

  const heartbeat = async () => {
    try {
      const serials = (await opts.listSerials()).filter((s) => modeOf(s) !== 'offline');
      if (open && serials.length > 0) emit({ type: 'heartbeat', serials, at: now() });
    } catch (err) {
      // The DB may be closing while the server stops; the next beat tries again.
      if (open) console.error('device simulator heartbeat failed:', err);
    }
  };

  return {
    kind: 'simulator',

    async start(serial, minutes, command_id) {
      const mode = modeOf(serial);
      if (mode === 'silent' || mode === 'offline') return;
      later(() => {
        if (mode === 'refuse' || modeOf(serial) === 'refuse') {
          emit({ type: 'refused', serial, command_id, reason: '设备故障，拒绝启动', at: now() });
          return;
        }
        const current = isRunning(serial);
        if (current && current.command_id !== command_id) {
          emit({ type: 'refused', serial, command_id, reason: '设备正在运行', at: now() });
          return;
        }
        running.set(serial, { command_id, until: now().getTime() + minutes * 60_000 });
        emit({ type: 'ack', serial, command_id, at: now() });
      });
    },

    async stop(serial, command_id) {
      const mode = modeOf(serial);
      if (mode === 'silent' || mode === 'offline') return;
      later(() => {
        running.delete(serial);
        emit({ type: 'ack', serial, command_id, at: now() });
      });
    },

    async status(serial): Promise<DeviceStatusReport> {
      const mode = modeOf(serial);
      return { serial, online: mode !== 'offline', running: isRunning(serial) !== undefined, mode };
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async open() {
      if (open) return;
      open = true;
      await heartbeat();
      heartbeatTimer = setInterval(() => void heartbeat(), heartbeatMs);
      heartbeatTimer.unref?.();
    },

    async close() {
      open = false;
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      heartbeatTimer = null;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },

    setMode(serial, mode) {
      const before = modeOf(serial);
      modes.set(serial, mode);
      if (mode === 'offline' && before !== 'offline') {
        running.delete(serial);
        emit({ type: 'offline', serial, at: now() });
      } else if (mode !== 'offline' && before === 'offline') {
        emit({ type: 'heartbeat', serials: [serial], at: now() });
      }
    },

    getMode: modeOf,
  };
}
