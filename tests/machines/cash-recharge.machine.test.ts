/**
 * The cash desk machine, model-based: every edge reachable with the fixtures' events and answers is walked on a
 * live actor (deferred `lookup` and `submit`), and a coverage assertion fails on any edge left unwalked. Properties:
 * nothing is sent without a member, a valid amount and a note; a retry after no answer reuses the key; a new
 * request after a refusal gets a new one.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import type { CashRechargeResponse, EmployeeMember } from '../../src/domain/cash-recharge.schema';
import type { Outcome } from '../../src/domain/outcome';
import {
  cashRechargeMachine,
  requestOf,
  type CashRechargeEvent,
  type CashRechargeSnapshot,
} from '../../src/machines/cash-recharge.machine';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { deferredActor, playStep } from './model-helpers';

const CODE = '12345671';
const MEMBER: EmployeeMember = {
  id: 1,
  code: CODE,
  nickname: '小明',
  avatar_url: '',
  merchant_id: 1,
  balance_fen: 0,
  principal_fen: 0,
  bonus_fen: 0,
  has_wallet: false,
};
const RESULT = {
  order: { order_no: 'R1' },
  member: MEMBER,
  replayed: false,
} as unknown as CashRechargeResponse;

/** Every user event (fails to compile on a new event type). */
const EVENTS = {
  'code.change': [
    { type: 'code.change', value: '1234 5671' },
    { type: 'code.change', value: '12345678' },
  ],
  'code.submit': [{ type: 'code.submit' }],
  'scan.start': [{ type: 'scan.start' }],
  'scan.detected': [
    { type: 'scan.detected', value: CODE },
    { type: 'scan.detected', value: 'https://example.com' },
  ],
  'scan.failed': [{ type: 'scan.failed', message: '无法打开摄像头' }],
  'scan.cancel': [{ type: 'scan.cancel' }],
  'package.select': [{ type: 'package.select', id: 1 }],
  'amount.change': [
    { type: 'amount.change', value: '50' },
    { type: 'amount.change', value: '0' },
  ],
  'note.change': [{ type: 'note.change', value: '前台收现' }],
  'member.clear': [{ type: 'member.clear' }],
  'recharge.submit': [{ type: 'recharge.submit' }],
  confirm: [{ type: 'confirm' }],
  cancel: [{ type: 'cancel' }],
  retry: [{ type: 'retry' }],
  next: [{ type: 'next' }],
} satisfies { [T in CashRechargeEvent['type']]: Extract<CashRechargeEvent, { type: T }>[] };

const LOOKUPS: Outcome<EmployeeMember>[] = [
  { ok: true, value: MEMBER },
  { ok: false, error: { status: 404, code: 'MEMBER_NOT_FOUND', message: '未找到该会员码对应的会员' } },
];
const SUBMITS: Outcome<CashRechargeResponse>[] = [
  { ok: true, value: RESULT },
  { ok: false, error: { status: 0, code: 'TIMEOUT', message: 'timeout exceeded' } },
  { ok: false, error: { status: 400, code: 'VALIDATION_FAILED', message: '请求参数有误' } },
];

type ModelEvent =
  | CashRechargeEvent
  | { type: 'xstate.done.actor.lookup'; output: unknown }
  | { type: 'xstate.error.actor.lookup'; error: unknown }
  | { type: 'xstate.done.actor.submit'; output: unknown }
  | { type: 'xstate.error.actor.submit'; error: unknown };

const LOOKUP_DONE = 'xstate.done.actor.lookup' as const;
const SUBMIT_DONE = 'xstate.done.actor.submit' as const;

function eventsFor(s: CashRechargeSnapshot): ModelEvent[] {
  const user = Object.values(EVENTS).flat() as ModelEvent[];
  if (s.matches('lookingUp'))
    return [
      ...LOOKUPS.map((output) => ({ type: LOOKUP_DONE, output })),
      { type: 'xstate.error.actor.lookup', error: new TypeError('bug') },
    ];
  if (s.matches('submitting'))
    return [
      ...SUBMITS.map((output) => ({ type: SUBMIT_DONE, output })),
      { type: 'xstate.error.actor.submit', error: new TypeError('bug') },
    ];
  return user;
}

const ser = (s: CashRechargeSnapshot) =>
  JSON.stringify({
    v: s.value,
    code: s.context.code,
    member: s.context.member !== null,
    pkg: s.context.packageId,
    amount: s.context.amountText,
    note: s.context.note,
    errors: Object.keys(s.context.errors).sort(),
    message: s.context.message !== null,
    key: s.context.key,
    result: s.context.result !== null,
  });

let keys = 0;
const newKey = () => `key-${++keys}`;

for (const canScan of [true, false]) {
  describe(`cash recharge machine (model-based, ${canScan ? 'with' : 'without'} a camera)`, () => {
    const input = { canScan, newKey: () => 'key' };
    const adj = getAdjacencyMap(cashRechargeMachine, {
      input,
      events: eventsFor as never,
      serializeState: (s) => ser(s as CashRechargeSnapshot),
    });
    const start = Object.values(adj)[0]!.state as CashRechargeSnapshot;

    it('walks every edge on a live actor and covers them all', { timeout: 120_000 }, async () => {
      const walked = new Set<string>();
      for (const path of edgePaths(adj, start, ser)) {
        if (path.edge && walked.has(path.edge)) continue;
        const lookup = deferredActor<unknown>();
        const submit = deferredActor<unknown>();
        const actor = createActor(
          cashRechargeMachine.provide({
            actors: { lookup: lookup.logic as never, submit: submit.logic as never },
          }),
          { input },
        );
        actor.start();
        for (const step of path.steps) {
          const before = actor.getSnapshot();
          const ev = step.event as ModelEvent;
          await playStep(actor, ev, ev.type.includes('lookup') ? lookup : submit);
          const after = actor.getSnapshot();
          expect(ser(after), `${path.edge}`).toBe(ser(step.state as CashRechargeSnapshot));
          walked.add(walkedEdge(before, step.event, after, ser));
        }
        actor.stop();
      }
      expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
    });

    it('sends only complete requests; scans only with a camera; reaches every outcome', () => {
      const states = Object.values(adj).map((n) => n.state as CashRechargeSnapshot);
      for (const s of states) {
        if (s.matches('confirming') || s.matches('submitting')) {
          expect('body' in requestOf(s.context)).toBe(true);
        }
        if (s.matches('submitting')) expect(s.context.key).not.toBeNull();
      }
      expect(states.some((s) => s.matches('scanning'))).toBe(canScan);
      for (const v of ['done', 'failed', 'choosing', 'confirming']) {
        expect(states.some((s) => s.matches(v as never))).toBe(true);
      }
    });
  });
}

describe('cash recharge machine (keys)', () => {
  it('a retry after no answer sends the same key; a refused request is followed by a new key', async () => {
    const lookup = deferredActor<unknown>();
    const submit = deferredActor<unknown>();
    const sent: string[] = [];
    const actor = createActor(
      cashRechargeMachine.provide({
        actors: {
          lookup: lookup.logic as never,
          submit: submit.logic as never,
        },
      }),
      { input: { canScan: false, newKey } },
    );
    actor.subscribe((s) => {
      if (s.matches('submitting') && sent.at(-1) !== `${s.context.key}@${sent.length}`)
        sent.push(s.context.key!);
    });
    actor.start();
    actor.send({ type: 'code.change', value: CODE });
    actor.send({ type: 'code.submit' });
    await playStep(actor, { type: LOOKUP_DONE, output: LOOKUPS[0] }, lookup);
    actor.send({ type: 'amount.change', value: '50' });
    actor.send({ type: 'note.change', value: '收现' });
    actor.send({ type: 'recharge.submit' });
    actor.send({ type: 'confirm' });
    const first = actor.getSnapshot().context.key;
    await playStep(actor, { type: SUBMIT_DONE, output: SUBMITS[1] }, submit);
    expect(actor.getSnapshot().matches('failed')).toBe(true);
    actor.send({ type: 'retry' });
    expect(actor.getSnapshot().context.key).toBe(first);
    await playStep(actor, { type: SUBMIT_DONE, output: SUBMITS[2] }, submit);
    expect(actor.getSnapshot().matches('choosing')).toBe(true);
    actor.send({ type: 'recharge.submit' });
    actor.send({ type: 'confirm' });
    expect(actor.getSnapshot().context.key).not.toBe(first);
    actor.stop();
  });
});
