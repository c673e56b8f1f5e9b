/**
 * A real Mosquitto (Debian's `mosquitto` package) for the server tests: started on a free loopback port under a
 * temp dir, with a password file (the server's user and each device's serial and secret) and the ACL of
 * docs/device-protocol.md (`pattern ... scango/%u/...` for devices), or with the dynamic security plugin, which the
 * server itself fills (MQTT_DYNSEC). `MOSQUITTO_PATH` names another binary.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const MOSQUITTO = process.env.MOSQUITTO_PATH ?? '/usr/sbin/mosquitto';
const PASSWD = process.env.MOSQUITTO_PASSWD_PATH ?? '/usr/bin/mosquitto_passwd';

export const mosquittoAvailable = () => fs.existsSync(MOSQUITTO) && fs.existsSync(PASSWD);

export const ACL = `user _scango_server
topic write scango/+/cmd
topic read scango/+/ack
topic read scango/+/heartbeat
topic read scango/+/event
topic read scango/+/status

pattern write scango/%u/ack
pattern write scango/%u/heartbeat
pattern write scango/%u/event
pattern write scango/%u/status
pattern read scango/%u/cmd
`;

export interface Mosquitto {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, proc: ChildProcess, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.end();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`mosquitto did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts Mosquitto with these users (username -> password); every file lives in a temp dir removed on close. */
export async function startMosquitto(users: Map<string, string>): Promise<Mosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-mosquitto-'));
  const passwd = path.join(dir, 'passwd');
  const acl = path.join(dir, 'acl');
  fs.writeFileSync(passwd, '', { mode: 0o600 });
  for (const [user, password] of users) execFileSync(PASSWD, ['-b', passwd, user, password]);
  fs.writeFileSync(acl, ACL, { mode: 0o600 });
  return runMosquitto(dir, [`password_file ${passwd}`, `acl_file ${acl}`]);
}

export const DYNSEC_PLUGIN =
  process.env.MOSQUITTO_DYNSEC_PATH ?? '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';
const CTRL = process.env.MOSQUITTO_CTRL_PATH ?? '/usr/bin/mosquitto_ctrl';

export const dynsecAvailable = () =>
  fs.existsSync(MOSQUITTO) && fs.existsSync(DYNSEC_PLUGIN) && fs.existsSync(CTRL);

/**
 * Starts Mosquitto with its dynamic security plugin, its config made by `mosquitto_ctrl dynsec init` with one admin
 * (`admin` / `password`: the server's MQTT_URL user); no device exists until the server creates it.
 */
export async function startMosquittoDynsec(admin: string, password: string): Promise<Mosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-mosquitto-dynsec-'));
  const config = path.join(dir, 'dynamic-security.json');
  execFileSync(CTRL, ['dynsec', 'init', config, admin, password], { stdio: 'ignore' });
  return runMosquitto(dir, [`plugin ${DYNSEC_PLUGIN}`, `plugin_opt_config_file ${config}`]);
}

/** Runs Mosquitto on a free loopback port with these authentication lines; removes `dir` on close. */
async function runMosquitto(dir: string, auth: string[]): Promise<Mosquitto> {
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      ...auth,
      'persistence false',
      // Nagle's algorithm off on client sockets, as the embedded broker does (no-delay.ts).
      'set_tcp_nodelay true',
      'log_dest none',
      // Started as root, Mosquitto would drop to user `mosquitto`, which cannot read the temp dir's files.
      `user ${os.userInfo().username}`,
      '',
    ].join('\n'),
  );
  const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
  try {
    await waitForPort(port, proc);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async close() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
