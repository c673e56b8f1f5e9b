/**
 * Machines stay free of React, the DOM and storage (docs/decisions.md D11, after taucad's
 * `machines.import-boundary.test.ts`): effects are provided at the edge, so a machine file that imports React or
 * reaches for `window`, `document`, `localStorage`, `sessionStorage` or `location` fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve(__dirname, '../../src/machines');
const files = fs.readdirSync(DIR).filter((f) => /\.(ts|tsx)$/.test(f));

const FORBIDDEN_IMPORTS = [
  /^react(-dom)?(\/|$)/,
  /^@xstate\/react/,
  /^@preact\/signals-react/,
  /\/(screens|ui|app)\//,
  /^wouter/,
];
const FORBIDDEN_GLOBALS = /(?<![\w.'"])(window|document|localStorage|sessionStorage|location)\s*[.[]/;

function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

describe('machine import boundary', () => {
  it('finds the machines', () => {
    expect(files).toEqual(
      expect.arrayContaining(['session.machine.ts', 'tab-bar.machine.ts', 'request.machine.ts']),
    );
  });

  it.each(files)('%s imports no React/DOM layer and touches no browser global', (file) => {
    const src = stripComments(fs.readFileSync(path.join(DIR, file), 'utf8'));
    const imports = [...src.matchAll(/from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
      (m) => m[1] ?? m[2] ?? '',
    );
    for (const spec of imports) {
      for (const re of FORBIDDEN_IMPORTS) expect(re.test(spec), `${file} imports ${spec}`).toBe(false);
    }
    expect(FORBIDDEN_GLOBALS.exec(src)?.[0] ?? null, `${file} touches a browser global`).toBeNull();
  });
});
