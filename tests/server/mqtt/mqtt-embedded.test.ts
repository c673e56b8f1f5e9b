/** The device protocol on the embedded broker (aedes, in-process), as `npm start` runs it: devices speaking
 * MQTT 3.1.1 and devices speaking MQTT 5. */
import { mqttScenarios } from './mqtt-scenarios';

mqttScenarios('embedded', 4);
mqttScenarios('embedded', 5);
