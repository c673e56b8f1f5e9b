/**
 * The device gateway (docs/decisions.md D8): how the server talks to devices. The embedded simulator implements it
 * today; an MQTT adapter can implement the same interface later without touching sessions or routes.
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
  | { type: 'offline'; serial: string; at: Date };

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
}

/** A gateway that can also be steered (the simulator): tests and the sandbox control endpoint use it. */
export interface ControllableGateway extends DeviceGateway {
  setMode(serial: string, mode: DeviceMode): void;
  getMode(serial: string): DeviceMode;
}

export function isControllable(g: DeviceGateway): g is ControllableGateway {
  return typeof (g as Partial<ControllableGateway>).setMode === 'function';
}
