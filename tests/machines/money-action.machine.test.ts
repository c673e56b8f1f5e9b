/**
 * The money-action machine, model-based: every edge reachable with the fixtures' events and answers is walked on
 * a live actor whose `send` is a deferred promise settled with the model's outcome, and a coverage assertion
 * fails on any edge left unwalked. Along the walk: nothing is sent without a confirmation, an invalid amount is
 * never confirmed, a retry after a lost answer sends the same Idempotency-Key, and a changed input gets a new one.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import { parseYuan } from '../../src/domain/money';
import type { Outcome } from '../../src/domain/outcome';
import {
  moneyActionMachine,
  type MoneyActionEvent,
  type MoneyActionSnapshot,
  type SendInput,
} from '../../src/machines/money-action.machine';
import * as sel from '../../src/machines/money-action.selectors';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { flush } from './model-helpers';

const validate = (action: string, value: string): string | null => {
  if (action === 'withdraw') {
    const fen = parseYuan(value);
    if (fen === null) return '请输入正确的金额';
    return fen < 100 ? '提现金额至少 1 元' : null;
  }
  return value.trim() === '' ? '请填写驳回原因' : null;
};

/** Every user event (fails to compile on a new event type). */
const USER_EVENTS = {
  open: [
    { type: 'open', action: 'withdraw', needsInput: true },
    { type: 'open', action: 'approve', target: 7, needsInput: false },
  ],
  change: [
    { type: 'change', value: '0.5' },
    { type: 'change', value: '12.5' },
  ],
  submit: [{ type: 'submit' }],
  confirm: [{ type: 'confirm' }],
  back: [{ type: 'back' }],
  retry: [{ type: 'retry' }],
  close: [{ type: 'close' }],
} satisfies { [T in MoneyActionEvent['type']]: Extract<MoneyActionEvent, { type: T }>[] };

const ANSWERS: Outcome<unknown>[] = [
  { ok: true, value: { id: 1, status: 'requested' } },
  { ok: false, error: { status: 0, code: 'NETWORK', message: 'Network Error' } },
  { ok: false, error: { status: 409, code: 'INSUFFICIENT_BALANCE', message: '可提现余额不足' } },
];

type ModelEvent =
  | MoneyActionEvent
  | { type: 'xstate.done.actor.send'; output: Outcome<unknown> }
  | { type: 'xstate.error.actor.send'; error: unknown };

function eventsFor(s: MoneyActionSnapshot): ModelEvent[] {
  const user = Object.values(USER_EVENTS).flat() as ModelEvent[];
  if (!s.matches('sending')) return user;
  return [
    ...user,
    ...ANSWERS.map((output) => ({ type: 'xstate.done.actor.send' as const, output })),
    { type: 'xstate.error.actor.send', error: new TypeError('bug') },
  ];
}

const ser = (s: MoneyActionSnapshot) =>
  JSON.stringify({
    value: s.value,
    action: s.context.action,
    input: s.context.value,
    error: s.context.error,
    failure: s.context.failure?.code ?? null,
    key: s.context.key !== null,
  });

let keys = 0;
const input = { validate, newKey: () => `key-${++keys}` };

describe('money-action machine (model-based)', () => {
  const adj = getAdjacencyMap(moneyActionMachine, {
    input,
    events: eventsFor as never,
    serializeState: (s) => ser(s as MoneyActionSnapshot),
  });
  const start = Object.values(adj)[0]!.state as MoneyActionSnapshot;

  it('walks every edge on a live actor and covers them all', async () => {
    const walked = new Set<string>();
    for (const path of edgePaths(adj, start, ser)) {
      if (path.edge && walked.has(path.edge)) continue;
      const sent: SendInput[] = [];
      const waiting: { resolve: (v: Outcome<unknown>) => void; reject: (e: unknown) => void }[] = [];
      const send = fromPromise<Outcome<unknown>, SendInput>(({ input: i }) => {
        sent.push(i);
        return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
      });
      const actor = createActor(moneyActionMachine.provide({ actors: { send } }), { input });
      actor.start();
      for (const step of path.steps) {
        const before = actor.getSnapshot();
        const ev = step.event as AnyEventObject;
        const sentBefore = sent.length;
        if (ev.type.startsWith('xstate.done.actor.')) {
          waiting.shift()!.resolve((ev as unknown as { output: Outcome<unknown> }).output);
        } else if (ev.type.startsWith('xstate.error.actor.')) {
          waiting.shift()!.reject(new TypeError('bug'));
        } else {
          actor.send(ev as MoneyActionEvent);
        }
        if (ev.type.startsWith('xstate.')) {
          await flush();
          await flush();
        }
        const after = actor.getSnapshot();
        expect(ser(after), `${path.edge}`).toBe(ser(step.state as MoneyActionSnapshot));
        walked.add(walkedEdge(before, step.event, after, ser));

        // Sent only on a confirmation or a retry, with a key, and a retry resends the same key.
        if (sent.length > sentBefore) {
          expect(['confirm', 'retry']).toContain(ev.type);
          expect(sent.at(-1)!.key).toBe(before.context.key);
          if (ev.type === 'retry') expect(sent.at(-1)!.key).toBe(sent.at(-2)!.key);
          if (before.context.action === 'withdraw')
            expect(validate('withdraw', sent.at(-1)!.value)).toBeNull();
        }
        // A changed input drops the key; a success drops it.
        if (ev.type === 'change' && before.matches('editing')) expect(after.context.key).toBeNull();
      }
      actor.stop();
    }
    expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
  }, 60_000);

  it('confirms only valid input, and offers a retry only when the answer was lost', () => {
    const states = Object.values(adj).map((n) => n.state as MoneyActionSnapshot);
    for (const s of states) {
      if (sel.selectIsConfirming(s) || sel.selectIsSending(s)) {
        expect(s.context.key).not.toBeNull();
        if (s.context.action === 'withdraw') expect(validate('withdraw', s.context.value)).toBeNull();
      }
      if (sel.selectCanRetry(s)) expect(s.context.failure!.status).toBe(0);
    }
    expect(states.some((s) => sel.selectIsEditing(s) && sel.selectError(s) === '提现金额至少 1 元')).toBe(
      true,
    );
    expect(states.some((s) => sel.selectIsFailed(s) && !sel.selectCanRetry(s))).toBe(true);
    expect(states.some(sel.selectCanRetry)).toBe(true);
    expect(states.some(sel.selectIsDone)).toBe(true);
  });
});
