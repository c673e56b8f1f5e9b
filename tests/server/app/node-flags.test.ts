/**
 * The server's process runs with the same Node flags wherever it is started (scripts/server-command.ts,
 * docs/decisions.md D38): `npm start`, the bench (its wallet-pay rows serve from the bench's own process) and the
 * tests that start `server/main.ts`. And the flag does what D38 relies on: V8's pool sized to the machine.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ARGS, SERVER_NODE_FLAGS } from '../../../scripts/server-command';

const root = path.resolve(__dirname, '../../..');
const scripts = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** The threads of a `node` started with `flags` (Linux: /proc). */
function threads(flags: string[]): number {
  const res = spawnSync(
    process.execPath,
    [
      ...flags,
      '-e',
      'setTimeout(() => console.log(require("fs").readdirSync("/proc/self/task").length), 50)',
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(res.status, res.stderr).toBe(0);
  return Number(res.stdout.trim());
}

describe("the server's Node flags", () => {
  it('npm start runs node with SERVER_ARGS, and the bench with the same flags', () => {
    expect(scripts.start).toBe(`exec node ${SERVER_ARGS.join(' ')}`);
    expect(scripts.bench).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} --import tsx bench/run.ts`);
  });

  it.runIf(process.platform === 'linux')(
    "--v8-pool-size=0 gives V8 one background thread fewer than the machine's cores (at least one)",
    () => {
      const pool = Math.max(1, os.availableParallelism() - 1);
      const withFlags = threads([...SERVER_NODE_FLAGS]);
      expect(withFlags).toBe(threads([`--v8-pool-size=${pool}`]));
      // Node's own default is four, whatever the machine.
      expect(threads([]) - withFlags).toBe(4 - pool);
    },
  );
});
