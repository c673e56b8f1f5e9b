/** Whether `npm start` must build the client first: dist/ missing, or older than anything the build reads. */
import fs from 'node:fs';
import path from 'node:path';

function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** The build's inputs, relative to the project root. */
export const CLIENT_INPUTS = ['src', 'index.html', 'public', 'vite.config.ts', 'package.json'];

/** True when `<root>/dist/index.html` is missing or older than any input of the build. */
export function clientIsStale(root: string): boolean {
  const built = newestMtime(path.join(root, 'dist', 'index.html'));
  if (!built) return true;
  return CLIENT_INPUTS.some((p) => newestMtime(path.join(root, p)) > built);
}
