/**
 * Device credentials kept in step with an external Mosquitto's dynamic security plugin (MQTT_DYNSEC=true; decision
 * D25 in docs/decisions.md, docs/device-protocol.md). The plugin stores its own salted hash of a password, so the
 * plain secret can be given to it only when staff issue it: `secretIssued` pushes it right after the DB commit. The
 * database stays the truth for everything else, and `reconcile` (at start-up and every `reconcileMs`) makes the
 * broker agree with it: a device's client is enabled only while its broker password is the device's current secret
 * (the client's `textdescription` holds a fingerprint of the secret's hash, written with the password in one
 * command) and the device is not disabled. A push that failed thus leaves the client disabled, never connectable
 * with the old secret; staff issue a new secret once the broker is back.
 */
import { createHash } from 'node:crypto';
import { SERVER_USERNAME } from './protocol';
import {
  connectDynsec,
  DynsecError,
  firstError,
  type DynsecClient,
  type DynsecCommand,
} from './dynsec.client';

/** What the sync needs of a device row. */
export interface DeviceCredentialRow {
  serial: string;
  status: string;
  secret_hash: string | null;
}

export interface DynsecSyncOptions {
  /** MQTT_URL: its user must be a dynsec admin (e.g. the one `mosquitto_ctrl dynsec init` created). */
  url: string;
  devices(): Promise<DeviceCredentialRow[]>;
  device(serial: string): Promise<DeviceCredentialRow | undefined>;
  /** Period of the reconciliation; default 60 s; 0 = only at start-up and when called. */
  reconcileMs?: number;
  /** How `secretIssued` hashes a secret into the form `secret_hash` holds. */
  hashSecret(secret: string): string;
}

export interface ReconcileReport {
  enabled: number;
  disabled: number;
  deleted: number;
  /** Devices with a secret the broker has no client for (its dynsec file was replaced): staff must rotate them. */
  missing: string[];
}

export interface DynsecSync {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Gives the broker the device's new secret; throws a DynsecError (after disabling the client if it can). */
  secretIssued(serial: string, secret: string): Promise<void>;
  /** Applies one device's row (disabled or enabled on its page) to its client now. */
  deviceChanged(serial: string): Promise<void>;
  reconcile(): Promise<ReconcileReport>;
}

/** Marks the broker clients this server manages (others, such as the admin, are never touched). */
export const DEVICE_TEXTNAME = 'scango device';
export const SERVER_ROLE = 'scango-server';
export const deviceRole = (serial: string) => `scango-device-${serial}`;
/** A fingerprint of a secret's stored hash: says which secret the broker holds, reveals nothing about it. */
export const secretMarker = (secretHash: string) =>
  `scango:${createHash('sha256').update(`dynsec|${secretHash}`).digest('hex').slice(0, 24)}`;

const exists = (a: { error?: string }) => /already|exists/i.test(a.error ?? '');
const acl = (acltype: string, topic: string) => ({ acltype, topic, allow: true });

/** The ACL of docs/device-protocol.md for one device: its own ack/heartbeat/event/status out, its cmd in. */
const deviceRoleCommand = (serial: string): DynsecCommand => ({
  command: 'createRole',
  rolename: deviceRole(serial),
  acls: [
    ...['ack', 'heartbeat', 'event', 'status'].map((k) => acl('publishClientSend', `scango/${serial}/${k}`)),
    acl('subscribeLiteral', `scango/${serial}/cmd`),
  ],
});

const serverRole: DynsecCommand = {
  command: 'createRole',
  rolename: SERVER_ROLE,
  acls: [
    acl('publishClientSend', 'scango/+/cmd'),
    ...['ack', 'heartbeat', 'event', 'status'].map((k) => acl('subscribePattern', `scango/+/${k}`)),
  ],
};

const hasServerRole = async (c: DynsecClient, admin: string) => {
  const [a] = await c.send([{ command: 'getClient', username: admin }]);
  const roles = ((a?.data?.client as { roles?: { rolename: string }[] } | undefined)?.roles ?? []).map(
    (r) => r.rolename,
  );
  return roles.includes(SERVER_ROLE);
};

/**
 * Connects and makes sure the server's user has the server's ACL (publish commands, read what devices send): the
 * admin that `mosquitto_ctrl dynsec init` makes may only read. Giving a client a role makes Mosquitto drop every
 * connection of that user, this one included, so the role is added without waiting for the answer, and checked
 * on a new connection. Runs before the gateway connects, so only the first start-up on a broker pays this.
 */
async function connectAsServer(url: string, admin: string): Promise<DynsecClient> {
  const c = await connectDynsec(url);
  if (await hasServerRole(c, admin)) return c;
  const err = firstError(await c.send([serverRole]), exists);
  if (err) throw err;
  await c.post([{ command: 'addClientRole', username: admin, rolename: SERVER_ROLE }]);
  await c.close(true);
  await new Promise((r) => setTimeout(r, 200));
  const again = await connectDynsec(url);
  if (!(await hasServerRole(again, admin))) {
    await again.close();
    throw new DynsecError(`the broker did not give ${admin} the role ${SERVER_ROLE}`);
  }
  return again;
}

interface BrokerClient {
  username: string;
  textname?: string;
  textdescription?: string;
  disabled?: boolean;
}

/** Whether the device's client should be enabled: its current secret is the broker's and it is not disabled. */
function wanted(row: DeviceCredentialRow | undefined, client: BrokerClient): 'enable' | 'disable' | 'delete' {
  if (!row) return 'delete';
  if (!row.secret_hash || client.textdescription !== secretMarker(row.secret_hash)) return 'disable';
  return row.status === 'disabled' ? 'disable' : 'enable';
}

function commandFor(row: DeviceCredentialRow | undefined, client: BrokerClient): DynsecCommand[] {
  const want = wanted(row, client);
  if (want === 'delete') {
    return [
      { command: 'deleteClient', username: client.username },
      { command: 'deleteRole', rolename: deviceRole(client.username) },
    ];
  }
  const isDisabled = client.disabled === true;
  if (want === 'disable' && !isDisabled) return [{ command: 'disableClient', username: client.username }];
  if (want === 'enable' && isDisabled) return [{ command: 'enableClient', username: client.username }];
  return [];
}

async function listClients(c: DynsecClient): Promise<BrokerClient[]> {
  const [a] = await c.send([{ command: 'listClients', verbose: true, count: -1 }]);
  const err = firstError([a!]);
  if (err) throw err;
  return ((a!.data?.clients ?? []) as BrokerClient[]).filter((c) => c.textname === DEVICE_TEXTNAME);
}

/** Makes the broker's device clients follow the rows (enable, disable, delete); what it did. */
async function reconcileClients(c: DynsecClient, opts: DynsecSyncOptions): Promise<ReconcileReport> {
  const [rows, clients] = await Promise.all([opts.devices(), listClients(c)]);
  const bySerial = new Map(rows.map((r) => [r.serial, r]));
  const report: ReconcileReport = { enabled: 0, disabled: 0, deleted: 0, missing: [] };
  const commands: DynsecCommand[] = [];
  for (const c of clients) {
    const cmds = commandFor(bySerial.get(c.username), c);
    for (const cmd of cmds) {
      if (cmd.command === 'enableClient') report.enabled++;
      if (cmd.command === 'disableClient') report.disabled++;
      if (cmd.command === 'deleteClient') report.deleted++;
    }
    commands.push(...cmds);
  }
  const known = new Set(clients.map((c) => c.username));
  report.missing = rows.filter((r) => r.secret_hash && !known.has(r.serial)).map((r) => r.serial);
  for (let i = 0; i < commands.length; i += 100) {
    const err = firstError(await c.send(commands.slice(i, i + 100)), (a) => a.command === 'deleteRole');
    if (err) throw err;
  }
  return report;
}

/** Gives the broker a device's new secret, fingerprint and role; disables the client if that fails. */
async function pushSecret(c: DynsecClient, opts: DynsecSyncOptions, serial: string, secret: string) {
  const row = await opts.device(serial);
  const hash = opts.hashSecret(secret);
  // Enabled only if this is still the device's secret (a later rotation's push wins) and it is not disabled.
  const enable = row?.secret_hash === hash && row.status !== 'disabled';
  const commands: DynsecCommand[] = [
    deviceRoleCommand(serial),
    { command: 'createClient', username: serial, textname: DEVICE_TEXTNAME },
    // Password and fingerprint in one command: the broker never holds one without the other.
    {
      command: 'modifyClient',
      username: serial,
      password: secret,
      textname: DEVICE_TEXTNAME,
      textdescription: secretMarker(hash),
      roles: [{ rolename: deviceRole(serial) }],
    },
    { command: enable ? 'enableClient' : 'disableClient', username: serial },
  ];
  try {
    const err = firstError(await c.send(commands), exists);
    if (err) throw err;
  } catch (err) {
    // The old secret must not keep working: disable the client now if the broker answers at all (otherwise
    // the next reconciliation does, finding the fingerprint stale).
    await c.send([{ command: 'disableClient', username: serial }]).catch(() => undefined);
    throw err instanceof DynsecError
      ? err
      : new DynsecError('the dynamic security plugin refused the secret');
  }
}

export function createDynsecSync(opts: DynsecSyncOptions): DynsecSync {
  let client: DynsecClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const admin = decodeURIComponent(new URL(opts.url).username) || SERVER_USERNAME;
  const need = () => {
    if (!client) throw new DynsecError('the dynamic security sync is not open');
    return client;
  };

  const reconcileNow = () => reconcileClients(need(), opts);

  /**
   * One change at a time in this process: a reconciliation reads the rows and the broker's clients and then acts,
   * so a secret pushed between its reads would look stale to it and be disabled. (Another instance's run can still
   * cross a push; the next run, a minute later, enables the client again: its fingerprint is then current.)
   */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.catch(() => undefined).then(fn);
    queue = next;
    return next;
  };
  const reconcile = () => exclusive(reconcileNow);

  return {
    async open() {
      client = await connectAsServer(opts.url, admin);
      const report = await reconcile();
      if (report.missing.length > 0) {
        console.warn(
          `dynamic security: ${report.missing.length} device(s) have a secret the broker does not know ` +
            `(e.g. ${report.missing.slice(0, 3).join(', ')}); issue them a new secret on the device's page`,
        );
      }
      const every = opts.reconcileMs ?? 60_000;
      if (every > 0) {
        timer = setInterval(() => {
          reconcile().catch((e: unknown) => {
            console.error(`dynamic security: reconciliation failed: ${(e as Error).message}`);
          });
        }, every);
        timer.unref();
      }
    },

    async close() {
      clearInterval(timer);
      await queue.catch(() => undefined);
      await client?.close();
      client = undefined;
    },

    secretIssued: (serial, secret) => exclusive(() => pushSecret(need(), opts, serial, secret)),

    deviceChanged: (serial) =>
      exclusive(async () => {
        const [a] = await need().send([{ command: 'getClient', username: serial }]);
        if (a?.error) return; // no client: the device has no secret on the broker, nothing can connect as it
        const found = (a?.data?.client ?? { username: serial }) as BrokerClient;
        if (found.textname !== DEVICE_TEXTNAME) return;
        const err = firstError(await need().send(commandFor(await opts.device(serial), found)));
        if (err) throw err;
      }),

    reconcile,
  };
}
