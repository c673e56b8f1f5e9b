/**
 * Vite plugin: after the client is written, every text file of the build gets its brotli and gzip twin
 * (`server/lib/compression.ts` serves them by `Accept-Encoding`), so no asset is compressed per request.
 */
import path from 'node:path';
import type { Plugin } from 'vite';
import { precompressDir } from '../server/lib/compression';

export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'scango:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const written = precompressDir(outDir);
      const sum = (k: 'raw' | 'br' | 'gz') => written.reduce((n, w) => n + w[k], 0);
      this.info?.(
        `precompressed ${written.length} files: ${sum('raw')} B raw, ${sum('br')} B brotli, ${sum('gz')} B gzip`,
      );
    },
  };
}
