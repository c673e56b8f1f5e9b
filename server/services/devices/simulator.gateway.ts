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
  const sim: Simulation = {
    opts,
    ackDelayMs: opts.ackDelayMs ?? 300,
    now: opts.now ?? (() => new Date()),
    listeners: new Set(),
    modes: new Map(),
    running: new Map(),
    timers: new Set(),
    open: false,
  };
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  const modeOf = (serial: string) => modeIn(sim, serial);

  return {
    kind: 'simulator',

    async start(serial, minutes, command_id) {
      const mode = modeOf(serial);
      if (mode === 'silent' || mode === 'offline') return;
      later(sim, () => answerStart(sim, serial, minutes, command_id, mode));
    },

    async stop(serial, command_id) {
      const mode = modeOf(serial);
      if (mode === 'silent' || mode === 'offline') return;
      later(sim, () => {
        sim.running.delete(serial);
        emit(sim, { type: 'ack', serial, command_id, at: sim.now() });
      });
    },

    async status(serial): Promise<DeviceStatusReport> {
      const mode = modeOf(serial);
      return { serial, online: mode !== 'offline', running: isRunning(sim, serial) !== undefined, mode };
    },

    subscribe(listener) {
      sim.listeners.add(listener);
      return () => sim.listeners.delete(listener);
    },

    async open() {
      if (sim.open) return;
      sim.open = true;
      await heartbeat(sim);
      heartbeatTimer = setInterval(() => void heartbeat(sim), heartbeatMs);
      heartbeatTimer.unref?.();
    },

    async close() {
      sim.open = false;
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      heartbeatTimer = null;
      for (const t of sim.timers) clearTimeout(t);
      sim.timers.clear();
    },

    setMode: (serial, mode) => setMode(sim, serial, mode),

    getMode: modeOf,
  };
}

/** The simulator's state: listeners, each device's mode, what runs, the pending answers. */
interface Simulation {
  opts: SimulatorOptions;
  ackDelayMs: number;
  now: () => Date;
  listeners: Set<GatewayListener>;
  modes: Map<string, DeviceMode>;
  /** serial -> the start command it is running and until when. */
  running: Map<string, { command_id: string; until: number }>;
  timers: Set<NodeJS.Timeout>;
  open: boolean;
}

function emit(sim: Simulation, event: GatewayEvent): void {
  for (const l of sim.listeners) {
    try {
      l(event);
    } catch (err) {
      console.error('device gateway listener failed:', err);
    }
  }
}

/** Runs `fn` after the acknowledgement delay (cancelled by close). */
function later(sim: Simulation, fn: () => void): void {
  const t = setTimeout(() => {
    sim.timers.delete(t);
    fn();
  }, sim.ackDelayMs);
  t.unref?.();
  sim.timers.add(t);
}

const modeIn = (sim: Simulation, serial: string): DeviceMode => sim.modes.get(serial) ?? 'normal';

function isRunning(sim: Simulation, serial: string) {
  const r = sim.running.get(serial);
  if (r && r.until > sim.now().getTime()) return r;
  sim.running.delete(serial);
  return undefined;
}

/** Every device not offline beats together (devices added later come online at the next beat). */
async function heartbeat(sim: Simulation): Promise<void> {
  try {
    const serials = (await sim.opts.listSerials()).filter((s) => modeIn(sim, s) !== 'offline');
    if (sim.open && serials.length > 0) emit(sim, { type: 'heartbeat', serials, at: sim.now() });
  } catch (err) {
    // The DB may be closing while the server stops; the next beat tries again.
    if (sim.open) console.error('device simulator heartbeat failed:', err);
  }
}

/** A start command's answer: refused (fault, or running another command), else acknowledged and running. */
function answerStart(sim: Simulation, serial: string, minutes: number, command_id: string, mode: DeviceMode) {
  const now = sim.now;
  if (mode === 'refuse' || modeIn(sim, serial) === 'refuse') {
    emit(sim, { type: 'refused', serial, command_id, reason: '设备故障，拒绝启动', at: now() });
    return;
  }
  const current = isRunning(sim, serial);
  if (current && current.command_id !== command_id) {
    emit(sim, { type: 'refused', serial, command_id, reason: '设备正在运行', at: now() });
    return;
  }
  sim.running.set(serial, { command_id, until: now().getTime() + minutes * 60_000 });
  emit(sim, { type: 'ack', serial, command_id, at: now() });
}

/** Changes a device's mode: going offline ends its run and says so; coming back beats at once. */
function setMode(sim: Simulation, serial: string, mode: DeviceMode): void {
  const before = modeIn(sim, serial);
  sim.modes.set(serial, mode);
  if (mode === 'offline' && before !== 'offline') {
    sim.running.delete(serial);
    emit(sim, { type: 'offline', serial, at: sim.now() });
  } else if (mode !== 'offline' && before === 'offline') {
    emit(sim, { type: 'heartbeat', serials: [serial], at: sim.now() });
  }
}
