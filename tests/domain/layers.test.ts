/**
 * The codebase's shape: kebab-case file names with a role (`tab-bar.machine.ts`, `products.routes.ts`), and no
 * source file over 300 lines except generated migrations and the schema (the layer rules themselves are lint rules
 * in eslint.config.js).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const files = execFileSync('git', ['ls-files', 'src', 'server', 'tests', 'scripts', 'bench'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(ts|tsx)$/.test(f) && fs.existsSync(path.join(root, f)));

describe('file names and sizes', () => {
  it('every source file name is kebab-case, with dotted roles', () => {
    const bad = files.filter(
      (f) => !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.tsx?$/.test(path.basename(f)),
    );
    expect(bad).toEqual([]);
  });

  it('no source file is over 300 lines (migrations and the schema aside)', () => {
    const big = files
      .filter((f) => /^(src|server)\//.test(f) && !f.includes('/migrations/') && !/db\/schema/.test(f))
      .filter((f) => fs.readFileSync(path.join(root, f), 'utf8').split('\n').length > 300)
      .sort();
    // Split a file that grows past this by what each part owns (docs/adding-a-resource.md).
    expect(big).toEqual([]);
  });
});

describe('sandboxes apart', () => {
  it('only the start-up list (server/start.ts) imports the sandbox folder; production wiring never does', () => {
    const importers = files
      .filter((f) => f.startsWith('server/') && !f.startsWith('server/sandbox/'))
      .filter((f) => /from '[./]*sandbox\//.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(importers).toEqual(['server/start.ts']);
  });
});

describe('screens read selectors', () => {
  it('no screen, hook or component asks a snapshot for a state by name (`.matches(...)`): machines export selectors', () => {
    const offenders = files
      .filter((f) => /^src\/(screens|app|ui)\//.test(f))
      .filter((f) => /\.matches\(/.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
