import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { payHtmlPlugin } from './scripts/pay-html.vite-plugin';
import { payShell } from './scripts/pay-shell.vite-plugin';
import { precompress } from './scripts/precompress.vite-plugin';

const apiPort = Number(process.env.API_PORT ?? process.env.PORT ?? 8080);

export default defineConfig({
  plugins: [react(), tailwindcss(), payShell(), payHtmlPlugin(), precompress()],
  build: {
    target: ['chrome111', 'safari16.4'],
    manifest: true,
    sourcemap: false,
  },
  server: {
    proxy: { '/backend': { target: `http://127.0.0.1:${apiPort}`, changeOrigin: false } },
  },
});
