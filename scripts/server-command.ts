/**
 * How the server's process is started: `npm start` (package.json) runs `node` with these arguments, and so do the
 * bench and the tests that start `server/main.ts` (tests/server/app/node-flags.test.ts keeps them in step).
 *
 * `--v8-pool-size=0`: V8's background threads (GC marking and sweeping, compilation) sized to the machine, one fewer
 * than its cores (at least one), instead of Node's fixed four; on two cores the GC's helpers took the server's
 * thread's core under load (docs/decisions.md D38).
 */
export const SERVER_NODE_FLAGS = ['--v8-pool-size=0'] as const;

/** `node` arguments that run the server, from the repository's root. */
export const SERVER_ARGS = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server/main.ts'];
