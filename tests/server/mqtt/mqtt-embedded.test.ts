/** The device protocol on the embedded broker (aedes, in-process), as `npm start` runs it. */
import { mqttScenarios } from './mqtt-scenarios';

mqttScenarios('embedded');
