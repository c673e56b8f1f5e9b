/**
 * The codebase's shape: kebab-case file names with a role (`tab-bar.machine.ts`, `products.routes.ts`), and no
 * source file over 300 lines except generated migrations and the schema (the layer rules themselves are lint rules
 * in eslint.config.js), and no function in src/ or server/ over 80 lines except the route tables named below.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionLengths } from '../../scripts/function-lengths';

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

/**
 * Route tables: in these files the function that builds the router (named `...Routes`) lists every route of its
 * resource with its handler inline, and may be longer than 80 lines. A handler inside is held to 80 like any function.
 */
const ROUTE_TABLE_FILES = [
  'server/routes/devices/devices.routes.ts',
  'server/routes/employee/employee.routes.ts',
  'server/routes/member-auth/member-auth.routes.ts',
  'server/routes/members/members.routes.ts',
  'server/routes/merchants/merchants.routes.ts',
  'server/routes/packages/packages.routes.ts',
  'server/routes/products/products.routes.ts',
  'server/routes/profit-sharing/profit-sharing.routes.ts',
  'server/routes/sub-users/sub-users.routes.ts',
  'server/routes/venues/prices.routes.ts',
  'server/sandbox/oauth.sandbox.ts',
  'server/sandbox/pay-routes.sandbox.ts',
];

describe('function sizes', () => {
  const long = files
    .filter((f) => /^(src|server)\//.test(f) && !f.includes('/migrations/') && !/db\/schema/.test(f))
    .flatMap((f) => functionLengths(f, fs.readFileSync(path.join(root, f), 'utf8')))
    .filter((fn) => fn.lines > 80)
    .filter((fn) => !(ROUTE_TABLE_FILES.includes(fn.file) && /Routes$/.test(fn.name)))
    .map((fn) => `${fn.file} ${fn.name}`);

  it('no function in src/ or server/ is over 80 lines, route tables aside', () => {
    // Split one that grows past this by what each part does (a hook, a sub-component, a helper or module beside it);
    // `npx tsx scripts/function-lengths.ts 80` lists the long ones.
    expect([...new Set(long)].sort()).toEqual([]);
  });
});
