/**
 * What a broker answers when it refuses something, as codes the MQTT tests compare: a connection's CONNACK, a
 * subscription's SUBACK, a publish's PUBACK/PUBREC (MQTT 5 only; MQTT 3.1.1 cannot refuse a publish).
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { BrokerKind } from './mqtt-harness';

/**
 * The CONNACK refusing bad credentials: aedes says "bad user name or password" (4 in MQTT 3.1.1, reason code 0x86 in
 * MQTT 5), Mosquitto "not authorized" (5, and 0x87). A device treats every one of them as a credential refusal.
 */
export const BAD_CREDENTIALS = {
  embedded: { 4: 4, 5: 0x86 },
  mosquitto: { 4: 5, 5: 0x87 },
} as const satisfies Record<BrokerKind, Record<4 | 5, number>>;

/** The refusal code of a connection attempt, a publish or a subscribe (0: accepted). */
export async function refusal(attempt: Promise<unknown>): Promise<number> {
  try {
    const done = await attempt;
    if (done instanceof mqtt.MqttClient) await done.endAsync();
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

/** The QoS a SUBACK grants for one filter, or 128 for a refusal (mqtt.js reports any failure code as an error). */
export const grant = (client: MqttClient, filter: string) =>
  new Promise<number>((resolve) =>
    client.subscribe(filter, { qos: 1 }, (err, g) => resolve(err ? 128 : (g?.[0]?.qos ?? -1))),
  );
