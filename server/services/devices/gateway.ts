/**
 * The device gateway (docs/decisions.md D8): how the server talks to devices. The MQTT gateway (mqtt/, the
 * protocol of docs/device-protocol.md) is the default; the in-process simulator implements the same interface for
 * unit tests that move the clock.
 *
 * Commands carry a `command_id` chosen by the caller and deterministic per session (`start-<session id>`), so a
 * command sent twice (dispatch after commit racing the scheduler's catch-up) is acknowledged twice with the same
 * id and the second acknowledgement changes nothing.
 */

export type DeviceMode = 'normal' | 'refuse' | 'silent' | 'offline';

export type GatewayEvent =
  /** The device accepted a command and acted on it. */
  | { type: 'ack'; serial: string; command_id: string; at: Date }
  /** The device answered but will not act (fault, occupied, bad parameters). */
  | { type: 'refused'; serial: string; command_id: string; reason: string; at: Date }
  /** Devices that reported in; batched because a broker delivers them in bursts. */
  | { type: 'heartbeat'; serials: string[]; at: Date }
  /** The device went away (an MQTT last-will message, or the simulator told to go offline). */
  | { type: 'offline'; serial: string; at: Date }
  /** The device (re)connected: online at once, and a fault it reported earlier is cleared. */
  | { type: 'online'; serial: string; at: Date }
  /** The device reports that the session's run is over (its time is up, or it was stopped on the device). */
  | { type: 'ended'; serial: string; session_id: number; at: Date }
  /** The device reports a fault, during a session (it stops) or while idle. */
  | { type: 'fault'; serial: string; session_id: number | null; code: string; message: string; at: Date };

export type GatewayListener = (event: GatewayEvent) => void;

export interface DeviceStatusReport {
  serial: string;
  online: boolean;
  running: boolean;
  mode?: DeviceMode;
}

export interface DeviceGateway {
  readonly kind: string;
  /** Ask the device to run for `minutes`; the answer comes later as an `ack` or `refused` event. */
  start(serial: string, minutes: number, command_id: string): Promise<void>;
  /** Ask the device to stop now (best effort: a device that never hears it stops by itself at the end). */
  stop(serial: string, command_id: string): Promise<void>;
  /** What the gateway last knew about the device. */
  status(serial: string): Promise<DeviceStatusReport>;
  /** Subscribe to acknowledgements, refusals, heartbeats and offline notices; returns the unsubscribe function. */
  subscribe(listener: GatewayListener): () => void;
  /** Begin heartbeats and connections (called from the server's start hook). */
  open(): Promise<void>;
  close(): Promise<void>;
  /**
   * Staff issued the device a new secret (for real hardware): the broker drops its connection so the old secret
   * stops working at once, and the embedded simulator stops standing in for that device. With an external
   * Mosquitto's dynamic security plugin the broker is given `secret` (never stored, never logged) now.
   */
  secretIssued?(serial: string, secret: string): Promise<void>;
  /** The device was disabled or enabled on its page (after the commit): the broker's credentials follow. */
  deviceChanged?(serial: string): Promise<void>;
  /** Whether the built-in simulator stands in for this device (it holds a secret of its own for it). */
  simulates?(serial: string): boolean;
}

/** A gateway that can also be steered (the simulator): tests and the sandbox control endpoint use it. */
export interface ControllableGateway extends DeviceGateway {
  /** Resolves once the gateway has seen the effect (an offline notice, or the device back online). */
  setMode(serial: string, mode: DeviceMode): void | Promise<void>;
  getMode(serial: string): DeviceMode;
}

export function isControllable(g: DeviceGateway): g is ControllableGateway {
  return typeof (g as Partial<ControllableGateway>).setMode === 'function';
}
