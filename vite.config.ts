import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { payHtmlPlugin } from './scripts/pay-html.vite-plugin';
import { payShell } from './scripts/pay-shell.vite-plugin';
import { precompress } from './scripts/precompress.vite-plugin';

/**
 * How the pay path is cut into files (docs/decisions.md D9; `npm run size` counts them): everything the entry loads
 * in one chunk; the small pieces shared by end-user and staff screens (the `src/ui` barrel, money, outcome,
 * idempotency key) in one `shared` chunk; the end-user HTTP and WeChat pieces in one `user` chunk. Without these
 * groups every module two lazy screens share becomes its own file, and `/user/pay` waits for each.
 */
const PAY_PATH_CHUNKS = [
  { name: 'app', tags: ['$initial' as const] },
  {
    name: 'shared',
    test: /src[\\/](ui[\\/](index|page-header|states|use-modal|confirm-dialog|money|toast|tab-dock|icons)|domain[\\/](money|idempotency-key)|http[\\/]outcome)\.tsx?$/,
  },
  {
    name: 'user',
    test: /src[\\/](http[\\/]user-api|ui[\\/]user[\\/]user-page|app[\\/]user[\\/]wechat-pay)\.tsx?$/,
  },
];

const apiPort = Number(process.env.API_PORT ?? process.env.PORT ?? 8080);

export default defineConfig({
  plugins: [react(), tailwindcss(), payShell(), payHtmlPlugin(), precompress()],
  build: {
    target: ['chrome111', 'safari16.4'],
    manifest: true,
    sourcemap: false,
    rolldownOptions: { output: { codeSplitting: { groups: PAY_PATH_CHUNKS } } },
  },
  server: {
    proxy: { '/backend': { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false } },
  },
});
