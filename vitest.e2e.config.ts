import { defineConfig } from 'vitest/config';

/** Browser tests (`npm run test:e2e`): node environment, one file at a time, generous timeouts. */
export default defineConfig({
  test: {
    name: 'e2e',
    environment: 'node',
    include: ['tests/e2e/**/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
