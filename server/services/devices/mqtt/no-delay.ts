/**
 * TCP_NODELAY for MQTT connections. Neither mqtt.js nor aedes turns Nagle's algorithm off, and MQTT's small
 * packets are where it hurts: a device's acknowledgement written right after its PUBACK of the command waits for
 * the peer's delayed TCP ACK (~40 ms on Linux), once per hop, which made a command round trip on loopback take
 * ~90 ms instead of ~2 ms (docs/performance.md, "Devices over MQTT").
 */
import type { Socket } from 'node:net';
import type { MqttClient } from 'mqtt';

/** Sets TCP_NODELAY on the client's socket now and after every reconnect (a WebSocket stream has none: skipped). */
export function noDelay<C extends MqttClient>(client: C): C {
  const set = () => (client.stream as Partial<Socket> | undefined)?.setNoDelay?.(true);
  set();
  client.on('connect', set);
  return client;
}
