/**
 * `npm run diagrams`: writes a Mermaid `stateDiagram-v2` for each shell machine into docs/diagrams/, generated
 * from the machine definitions themselves (states, initial states, every transition with its guard), so the
 * pictures cannot drift: tests/machines/diagrams.test.ts fails when a committed diagram differs from a fresh one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { requestMachine } from '../src/machines/request.machine';
import { sessionMachine } from '../src/machines/session.machine';
import { tabBarMachine } from '../src/machines/tab-bar.machine';
import { payMachine } from '../src/machines/pay.machine';
import { rechargeMachine } from '../src/machines/user-recharge.machine';
import { usingMachine } from '../src/machines/user-using.machine';
import { formMachine } from '../src/machines/shared/form.machine';
import { cashRechargeMachine } from '../src/machines/cash-recharge.machine';
import { moneyActionMachine } from '../src/machines/money-action.machine';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIAGRAM_DIR = path.join(ROOT, 'docs/diagrams');
export const README = path.join(ROOT, 'README.md');
const README_START = '<!-- diagrams:start -->';
const README_END = '<!-- diagrams:end -->';

export const MACHINES: { file: string; title: string; source: string; machine: AnyStateMachine }[] = [
  {
    file: 'session.md',
    title: 'Session machine',
    source: 'src/machines/session.machine.ts',
    machine: sessionMachine,
  },
  {
    file: 'tab-bar.md',
    title: 'Tab-bar machine',
    source: 'src/machines/tab-bar.machine.ts',
    machine: tabBarMachine,
  },
  {
    file: 'request.md',
    title: 'Request machine',
    source: 'src/machines/request.machine.ts',
    machine: requestMachine,
  },
  {
    file: 'pay.md',
    title: 'Pay machine',
    source: 'src/machines/pay.machine.ts',
    machine: payMachine,
  },
  {
    file: 'user-recharge.md',
    title: 'Recharge machine',
    source: 'src/machines/user-recharge.machine.ts',
    machine: rechargeMachine,
  },
  {
    file: 'user-using.md',
    title: 'Using machine',
    source: 'src/machines/user-using.machine.ts',
    machine: usingMachine,
  },
  {
    file: 'form.md',
    title: 'Form machine',
    source: 'src/machines/shared/form.machine.ts',
    machine: formMachine,
  },
  {
    file: 'cash-recharge.md',
    title: 'Cash recharge machine',
    source: 'src/machines/cash-recharge.machine.ts',
    machine: cashRechargeMachine,
  },
  {
    file: 'money-action.md',
    title: 'Money-action machine',
    source: 'src/machines/money-action.machine.ts',
    machine: moneyActionMachine,
  },
];

/** Mermaid state ids: the node path joined with `_` (ids must be word characters). */
const idOf = (node: AnyStateNode) => node.path.join('_') || 'root';

function eventLabel(event: string): string {
  if (event.startsWith('xstate.done.actor.')) return `done ${event.slice('xstate.done.actor.'.length)}`;
  if (event.startsWith('xstate.error.actor.')) return `error ${event.slice('xstate.error.actor.'.length)}`;
  return event;
}

function guardLabel(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  if (typeof guard === 'object' && guard && 'type' in guard)
    return ` [${String((guard as { type: unknown }).type)}]`;
  return ' [guard]';
}

interface TransitionLike {
  target?: readonly AnyStateNode[] | undefined;
  guard?: unknown;
  eventType: string;
}

/** Renders one machine as a Mermaid stateDiagram-v2 (deterministic: definition order). */
export function renderDiagram(machine: AnyStateMachine): string {
  const lines: string[] = ['stateDiagram-v2'];
  const edges: string[] = [];
  const top = machine.root;
  const children = (node: AnyStateNode) => Object.values(node.states) as AnyStateNode[];

  const edge = (from: AnyStateNode, t: TransitionLike, label: string) => {
    const targets = t.target && t.target.length ? t.target : [from];
    for (const to of targets) edges.push(`  ${idOf(from)} --> ${idOf(to)} : ${label}${guardLabel(t.guard)}`);
  };

  const walk = (node: AnyStateNode, indent: string) => {
    for (const child of children(node)) {
      const id = idOf(child);
      if (child.description)
        lines.push(
          `${indent}${id} : ${child.key}`,
          `${indent}note right of ${id} : ${child.description.replace(/\n/g, ' ')}`,
        );
      else lines.push(`${indent}${id} : ${child.key}`);
      if (children(child).length) {
        lines.push(`${indent}state ${id} {`);
        walk(child, indent + '  ');
        lines.push(`${indent}}`);
      }
    }
    const initial = node.initial?.target?.[0] as AnyStateNode | undefined;
    if (initial) lines.push(`${indent}[*] --> ${idOf(initial)}`);
  };
  walk(top, '  ');

  const collect = (node: AnyStateNode, sources: AnyStateNode[]) => {
    for (const [event, defs] of node.transitions as Map<string, TransitionLike[]>) {
      for (const def of defs) for (const from of sources) edge(from, def, eventLabel(event));
    }
    for (const def of (node.always ?? []) as TransitionLike[])
      for (const from of sources) edge(from, def, 'always');
  };
  // Root-level transitions apply in every top-level state: drawn from each of them.
  collect(top, children(top));
  const visit = (node: AnyStateNode) => {
    for (const child of children(node)) {
      collect(child, [child]);
      visit(child);
    }
  };
  visit(top);
  for (const child of children(top)) if (child.type === 'final') edges.push(`  ${idOf(child)} --> [*]`);
  return [...lines, ...edges].join('\n') + '\n';
}

export function renderFile(entry: (typeof MACHINES)[number]): string {
  return [
    `# ${entry.title}`,
    '',
    `Generated by \`npm run diagrams\` from \`${entry.source}\`; do not edit by hand (a test compares it with the machine).`,
    '',
    '```mermaid',
    renderDiagram(entry.machine).trimEnd(),
    '```',
    '',
  ].join('\n');
}

/** The README's machine section: every diagram inline, between the diagrams markers. */
export function renderReadmeSection(): string {
  const parts = MACHINES.map((entry) =>
    [
      `### ${entry.title} ([\`${entry.source}\`](${entry.source}))`,
      '',
      '```mermaid',
      renderDiagram(entry.machine).trimEnd(),
      '```',
    ].join('\n'),
  );
  return `${README_START}\n${parts.join('\n\n')}\n${README_END}`;
}

/** The README with its machine section replaced by freshly generated diagrams. */
export function readmeWithDiagrams(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start)
    throw new Error(`README.md lacks the ${README_START} / ${README_END} markers`);
  return readme.slice(0, start) + renderReadmeSection() + readme.slice(end + README_END.length);
}

function main() {
  fs.mkdirSync(DIAGRAM_DIR, { recursive: true });
  for (const entry of MACHINES) {
    fs.writeFileSync(path.join(DIAGRAM_DIR, entry.file), renderFile(entry));
    console.log(`wrote docs/diagrams/${entry.file}`);
  }
  fs.writeFileSync(README, readmeWithDiagrams(fs.readFileSync(README, 'utf8')));
  console.log('wrote the machine section of README.md');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
