/**
 * The shared form machine, model-based: every edge reachable with the fixtures' events and answers is walked on
 * a live actor whose `load` and `submit` are deferred promises settled with the model's outcome; a coverage
 * assertion fails on any edge left unwalked. Validation is the products schema's, as on the real screen.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import { ProductInputSchema } from '../../src/domain/products.schema';
import { formMachine, type FormSnapshot } from '../../src/machines/shared/form.machine';
import * as sel from '../../src/machines/shared/form.selectors';
import type { FieldErrors, FormEvent, FormOutcome, FormValues } from '../../src/machines/shared/form.types';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { deferredActor, playStep } from './model-helpers';

const validate = (values: FormValues): FieldErrors => {
  const r = ProductInputSchema.safeParse(values);
  if (r.success) return {};
  const out: FieldErrors = {};
  for (const i of r.error.issues) out[i.path.join('.') || '_root'] ??= i.message;
  return out;
};

/** Every user event of the form machine (fails to compile on a new event). */
const FORM_EVENTS = {
  'form.change': [
    { type: 'form.change', field: 'name', value: '' },
    { type: 'form.change', field: 'name', value: '立式充电桩' },
  ],
  'form.submit': [{ type: 'form.submit' }],
  'form.leave': [{ type: 'form.leave' }],
  'leave.confirm': [{ type: 'leave.confirm' }],
  'leave.cancel': [{ type: 'leave.cancel' }],
  retry: [{ type: 'retry' }],
} satisfies { [T in FormEvent['type']]: Extract<FormEvent, { type: T }>[] };

const LOADED: FormOutcome = { ok: true, value: { name: '旧型号', category: 'charger', description: '' } };
const SAVE_ANSWERS: FormOutcome[] = [
  { ok: true, value: { id: 9 } },
  {
    ok: false,
    error: { status: 400, code: 'VALIDATION_FAILED', message: '请求参数有误', details: { name: '名称重复' } },
  },
  { ok: false, error: { status: 409, code: 'PRODUCT_IN_USE', message: '该型号已有设备在用' } },
];
const LOAD_ANSWERS: FormOutcome[] = [
  LOADED,
  { ok: false, error: { status: 404, code: 'NOT_FOUND', message: '设备型号不存在' } },
];

type ModelEvent =
  | FormEvent
  | { type: 'xstate.done.actor.load' | 'xstate.done.actor.submit'; output: FormOutcome }
  | { type: 'xstate.error.actor.load' | 'xstate.error.actor.submit'; error: unknown };

function eventsFor(s: FormSnapshot): ModelEvent[] {
  const user = Object.values(FORM_EVENTS).flat() as ModelEvent[];
  if (s.matches('loading')) {
    return [
      ...user,
      ...LOAD_ANSWERS.map((output) => ({ type: 'xstate.done.actor.load' as const, output })),
      { type: 'xstate.error.actor.load', error: new TypeError('bug') },
    ];
  }
  if (s.matches('submitting')) {
    return [
      ...user,
      ...SAVE_ANSWERS.map((output) => ({ type: 'xstate.done.actor.submit' as const, output })),
      { type: 'xstate.error.actor.submit', error: new TypeError('bug') },
    ];
  }
  return user;
}

const ser = (s: FormSnapshot) =>
  JSON.stringify({
    value: s.value,
    values: s.context.values,
    errors: Object.keys(s.context.errors).sort(),
    message: s.context.message !== null,
  });

const NEW: FormValues = { name: '', category: 'charger', description: '' };

for (const load of [false, true]) {
  describe(`form machine (model-based, ${load ? 'editing a loaded record' : 'adding a new record'})`, () => {
    const input = { values: NEW, load, validate };
    const adj = getAdjacencyMap(formMachine, {
      input,
      events: eventsFor as never,
      serializeState: (s) => ser(s as FormSnapshot),
    });
    const start = Object.values(adj)[0]!.state as FormSnapshot;

    it('walks every edge on a live actor and covers them all', async () => {
      const walked = new Set<string>();
      for (const path of edgePaths(adj, start, ser)) {
        if (path.edge && walked.has(path.edge)) continue;
        const loadActor = deferredActor<FormOutcome>();
        const submitActor = deferredActor<FormOutcome>();
        const actor = createActor(
          formMachine.provide({
            actors: { load: loadActor.logic as never, submit: submitActor.logic as never },
          }),
          { input },
        );
        actor.start();
        for (const step of path.steps) {
          const before = actor.getSnapshot();
          const ev = step.event as ModelEvent;
          const deferred = ev.type.includes('.actor.load') ? loadActor : submitActor;
          await playStep(actor, ev, deferred as never);
          const after = actor.getSnapshot();
          expect(ser(after), `${path.edge}`).toBe(ser(step.state as FormSnapshot));
          walked.add(walkedEdge(before, step.event, after, ser));
        }
        actor.stop();
      }
      expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
      // Hundreds of paths, each on a live actor: a bound for a loaded CI machine, not a speed claim.
    }, 60_000);

    it('never submits invalid values, puts server field errors on the fields, asks before leaving dirty', () => {
      const states = Object.values(adj).map((n) => n.state as FormSnapshot);
      for (const s of states) {
        if (s.matches('submitting')) expect(validate(s.context.values)).toEqual({});
        if (sel.selectAsksToLeave(s))
          expect(JSON.stringify(s.context.values)).not.toBe(JSON.stringify(s.context.initial));
      }
      expect(states.some((s) => sel.selectIsEditable(s) && sel.selectErrors(s).name === '名称重复')).toBe(
        true,
      );
      expect(
        states.some((s) => sel.selectIsEditable(s) && sel.selectErrors(s).name === '请输入型号名称'),
      ).toBe(true);
      expect(
        states.some((s) => sel.selectIsEditable(s) && sel.selectMessage(s) === '该型号已有设备在用'),
      ).toBe(true);
      expect(states.some(sel.selectIsSaved)).toBe(true);
      expect(states.some(sel.selectHasLeft)).toBe(true);
      if (load) expect(states.some(sel.selectLoadFailed)).toBe(true);
    });
  });
}
