/**
 * The device protocol on Mosquitto from Debian (`apt-get install -y mosquitto`; CI installs it), started on a
 * loopback port with a password file and the ACL of docs/device-protocol.md; the gateway speaks MQTT 5 with shared
 * subscriptions. Skipped, with a message, only where the binary is absent; in CI it must run.
 */
import { describe, it } from 'vitest';
import { MOSQUITTO, mosquittoAvailable } from './mosquitto';
import { mqttScenarios } from './mqtt-scenarios';

if (mosquittoAvailable()) {
  mqttScenarios('mosquitto', 4);
  mqttScenarios('mosquitto', 5);
} else if (process.env.CI) {
  describe('Mosquitto', () => {
    it('is installed (CI installs it in .ci/run)', () => {
      throw new Error(`${MOSQUITTO} is missing: apt-get install -y mosquitto`);
    });
  });
} else {
  describe.skip(`Mosquitto not installed (${MOSQUITTO}): apt-get install -y mosquitto to run these`, () => {
    it('runs the protocol cases on Mosquitto', () => {});
  });
}
