import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Component tests boot the real server in-process (its MQTT gateway and simulated devices): mqtt's browser build,
// which this project's resolve conditions would pick, has no TCP. Its Node entry instead.
const mqttNode = fileURLToPath(new URL('./node_modules/mqtt/build/index.js', import.meta.url));

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        resolve: { alias: [{ find: /^mqtt$/, replacement: mqttNode }] },
        test: {
          name: 'client',
          environment: 'happy-dom',
          include: [
            'tests/machines/**/*.test.{ts,tsx}',
            'tests/components/**/*.test.{ts,tsx}',
            'tests/domain/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['tests/server/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
    ],
  },
});
