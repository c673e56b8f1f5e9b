/**
 * The device protocol over MQTT (docs/device-protocol.md): topic names and JSON payloads, shared by the server's
 * gateway, the embedded broker's ACL and the device simulator. Every payload is validated on receipt; a malformed
 * one is dropped (and counted), never thrown.
 */
import { z } from 'zod';

/** Every topic of a device is under `scango/<serial>/`. */
export const TOPIC_ROOT = 'scango';
/** The server's own broker user; it can never be a serial (a serial starts with a letter or digit). */
export const SERVER_USERNAME = '_scango_server';
/** MQTT 5 shared-subscription group: with it, each event reaches one API instance instead of all. */
export const SHARE_GROUP = 'scango';

/** Server -> device. */
export const DEVICE_SUBSCRIBES = ['cmd'] as const;
/** Device -> server. */
export const DEVICE_PUBLISHES = ['ack', 'heartbeat', 'event', 'status'] as const;
export type DeviceTopicKind = (typeof DEVICE_PUBLISHES)[number] | (typeof DEVICE_SUBSCRIBES)[number];

export const topicOf = (serial: string, kind: DeviceTopicKind) => `${TOPIC_ROOT}/${serial}/${kind}`;

/** `scango/<serial>/<kind>` -> its parts; null for anything else (deeper levels, wildcards, other roots). */
export function parseTopic(topic: string): { serial: string; kind: string } | null {
  const parts = topic.split('/');
  if (parts.length !== 3 || parts[0] !== TOPIC_ROOT) return null;
  const [, serial, kind] = parts as [string, string, string];
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(serial)) return null;
  return { serial, kind };
}

const sessionId = z.number().int().positive().max(2_147_483_647);

export const StartCommand = z.object({
  cmd: z.literal('start'),
  session_id: sessionId,
  minutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
});
export const StopCommand = z.object({ cmd: z.literal('stop'), session_id: sessionId });
export const Command = z.discriminatedUnion('cmd', [StartCommand, StopCommand]);
export type Command = z.infer<typeof Command>;

export const Ack = z.object({
  cmd: z.enum(['start', 'stop']),
  session_id: sessionId,
  result: z.enum(['ok', 'refused']),
  reason: z.string().max(200).optional(),
});
export type Ack = z.infer<typeof Ack>;

export const Heartbeat = z.object({
  session_id: sessionId.nullable().optional(),
  remaining_s: z.number().int().min(0).optional(),
});
export type Heartbeat = z.infer<typeof Heartbeat>;

export const SessionEvent = z.discriminatedUnion('event', [
  z.object({ event: z.literal('ended'), session_id: sessionId }),
  z.object({
    event: z.literal('fault'),
    session_id: sessionId.nullable().optional(),
    code: z.string().max(32),
    message: z.string().max(200).optional(),
  }),
]);
export type SessionEvent = z.infer<typeof SessionEvent>;

export const Status = z.object({
  online: z.boolean(),
  fw: z.string().max(32).optional(),
});
export type Status = z.infer<typeof Status>;

/** The last will a device registers at CONNECT: retained, QoS 1, so the server sees it offline at once. */
export const offlineWill = (serial: string) => ({
  topic: topicOf(serial, 'status'),
  payload: Buffer.from(JSON.stringify({ online: false } satisfies Status)),
  qos: 1 as const,
  retain: true,
});

/** Parses a JSON payload with a schema; null when it is not JSON or does not fit. */
export function decode<T>(schema: z.ZodType<T>, payload: Buffer | Uint8Array): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(payload).toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const encode = (value: unknown) => Buffer.from(JSON.stringify(value));

/**
 * Broker ACL, the same rule as Mosquitto's `pattern` lines: a device may publish only its own ack, heartbeat,
 * event and status topics and subscribe only to its own cmd topic; the server publishes commands and subscribes to
 * device topics (directly, or through the shared group).
 */
export function mayPublish(username: string, topic: string): boolean {
  const t = parseTopic(topic);
  if (!t) return false;
  if (username === SERVER_USERNAME) return t.kind === 'cmd';
  return t.serial === username && (DEVICE_PUBLISHES as readonly string[]).includes(t.kind);
}

export function maySubscribe(username: string, filter: string): boolean {
  if (username === SERVER_USERNAME) {
    const plain = filter.startsWith(`$share/${SHARE_GROUP}/`)
      ? filter.slice(`$share/${SHARE_GROUP}/`.length)
      : filter;
    const parts = plain.split('/');
    return (
      parts.length === 3 &&
      parts[0] === TOPIC_ROOT &&
      (DEVICE_PUBLISHES as readonly string[]).includes(parts[2]!)
    );
  }
  return filter === topicOf(username, 'cmd');
}
