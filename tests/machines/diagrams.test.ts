/**
 * The machine diagrams in docs/diagrams/ are generated from the machine definitions (`npm run diagrams`); this
 * fails when a committed diagram differs from a fresh one, so the README's pictures cannot drift.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIAGRAM_DIR,
  MACHINES,
  README,
  readmeWithDiagrams,
  renderDiagram,
  renderFile,
} from '../../scripts/diagrams';

describe('machine diagrams', () => {
  it.each(MACHINES.map((m) => [m.file, m] as const))(
    'docs/diagrams/%s equals the generated diagram',
    (file, entry) => {
      const committed = fs.readFileSync(path.join(DIAGRAM_DIR, file), 'utf8');
      expect(committed, 'run `npm run diagrams` and commit docs/diagrams').toBe(renderFile(entry));
    },
  );

  it('README.md shows every machine diagram as generated', () => {
    const readme = fs.readFileSync(README, 'utf8');
    expect(readme, 'run `npm run diagrams` and commit README.md').toBe(readmeWithDiagrams(readme));
  });

  it('names every state and every event of each machine', () => {
    for (const { machine } of MACHINES) {
      const text = renderDiagram(machine);
      for (const key of Object.keys(machine.root.states)) expect(text).toContain(`${key} : ${key}`);
      for (const event of machine.root.events) {
        const label = event.replace('xstate.done.actor.', 'done ').replace('xstate.error.actor.', 'error ');
        expect(text).toContain(label);
      }
    }
  });
});
