/**
 * A device's MQTT credentials (docs/device-protocol.md): what the device page shows. The secret itself is in the
 * answer of a rotation only, once; the server keeps just its hash.
 */
export interface DeviceCredentials {
  device_id: number;
  serial: string;
  /** The MQTT username: the serial. */
  username: string;
  /** Where devices connect (no credentials in it). */
  broker_url: string | null;
  has_secret: boolean;
  /** The built-in simulator stands in for the device now (no secret issued yet; demo and tests). */
  simulated: boolean;
  rotated_at: string | null;
}

/** The answer of `POST /backend/merchant/devices/:id/secret`: shown once, never again. */
export interface DeviceSecretIssued extends DeviceCredentials {
  secret: string;
}
