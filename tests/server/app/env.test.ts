import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../../server/env';
import { SERVER_ARGS } from '../../../scripts/server-command';

describe('env', () => {
  it('has defaults that run the product with no configuration', () => {
    const env = parseEnv({}, {});
    expect(env).toMatchObject({
      PORT: 8080,
      DATA_DIR: './data',
      SEED: 'demo',
      TZ: 'Asia/Shanghai',
      SERVE_CLIENT: true,
      TOKEN_TTL_HOURS: 168,
      PUBLIC_URL: 'http://localhost:8080',
    });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('MQTT_DYNSEC needs MQTT_URL (the external Mosquitto it manages)', () => {
    expect(parseEnv({}, {}).MQTT_DYNSEC).toBe(false);
    expect(() => parseEnv({}, { MQTT_DYNSEC: 'true' })).toThrow(/MQTT_DYNSEC=true: 需要 MQTT_URL/);
    const env = parseEnv({}, { MQTT_DYNSEC: 'true', MQTT_URL: 'mqtt://_scango_server:pw@127.0.0.1:1883' });
    expect(env.MQTT_DYNSEC).toBe(true);
  });

  it('reads strings from the environment; overrides win', () => {
    const env = parseEnv(
      { PORT: 9000 },
      {
        PORT: '7000',
        SEED: 'none',
        SERVE_CLIENT: 'false',
        DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
        PUBLIC_URL: 'https://pay.example.com/',
      },
    );
    expect(env.PORT).toBe(9000);
    expect(env.SEED).toBe('none');
    expect(env.SERVE_CLIENT).toBe(false);
    expect(env.DATABASE_URL).toBe('postgres://u@127.0.0.1:5432/db');
    expect(env.PUBLIC_URL).toBe('https://pay.example.com');
  });

  it('fails fast listing every bad variable', () => {
    let error: unknown;
    try {
      parseEnv({}, { PORT: 'eighty', SEED: 'lots', DATABASE_URL: 'mysql://x', TOKEN_TTL_HOURS: '-1' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    const msg = (error as Error).message;
    for (const name of ['PORT', 'SEED', 'DATABASE_URL', 'TOKEN_TTL_HOURS']) expect(msg).toContain(name);
    expect(msg).toContain('"eighty"');
  });

  it('the server process exits at once with that message', () => {
    const root = path.resolve(__dirname, '../../..');
    const res = spawnSync(process.execPath, SERVER_ARGS, {
      cwd: root,
      env: { ...process.env, PORT: 'not-a-port', SERVE_CLIENT: 'false', DATA_DIR: 'memory://' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('PORT');
    expect(res.stderr).toContain('配置错误');
  });
});
