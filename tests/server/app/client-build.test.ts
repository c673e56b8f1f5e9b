import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clientIsStale } from '../../../server/lib/client-build';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(rel: string, mtimeS: number) {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, rel);
  fs.utimesSync(p, mtimeS, mtimeS);
}

describe('npm start builds the client only when needed', () => {
  it('builds when dist/ is missing, not when it is newer than every input, again when a source changes', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-build-'));
    write('src/main.tsx', 1_000);
    write('index.html', 1_000);
    write('package.json', 1_000);
    expect(clientIsStale(dir)).toBe(true);
    write('dist/index.html', 2_000);
    for (const d of ['src', 'dist', '.']) fs.utimesSync(path.join(dir, d), 1_000, 1_000);
    expect(clientIsStale(dir)).toBe(false);
    write('src/screens/user/pay.tsx', 3_000);
    // Only the file is newer (folders set back), so the file's own time is what counts.
    for (const d of ['src', 'src/screens', 'src/screens/user'])
      fs.utimesSync(path.join(dir, d), 1_000, 1_000);
    expect(clientIsStale(dir)).toBe(true);
    write('src/screens/user/pay.tsx', 1_500);
    for (const d of ['src', 'src/screens', 'src/screens/user'])
      fs.utimesSync(path.join(dir, d), 1_000, 1_000);
    expect(clientIsStale(dir)).toBe(false);
  });
});
