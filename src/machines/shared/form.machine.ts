import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { FieldErrors, FormContext, FormEvent, FormInput, FormOutcome, FormValues } from './form.types';

const same = (a: FormValues, b: FormValues) => JSON.stringify(a) === JSON.stringify(b);

/** The fields a server error names (`details`), as messages. */
function fieldErrorsOf(outcome: FormOutcome): FieldErrors {
  if (outcome.ok || !outcome.error.details) return {};
  const out: FieldErrors = {};
  for (const [k, v] of Object.entries(outcome.error.details)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * Owns one edit form of a staff resource (docs/adding-a-resource.md): load the record (when asked), edit,
 * validate with the shared zod schema before sending, submit, put the server's field errors back on the fields,
 * and warn before leaving with unsaved changes. The calls are the edge-provided `load` and `submit` actors, which
 * return expected failures as values.
 */
export const formMachine = setup({
  types: {
    context: {} as FormContext,
    events: {} as FormEvent,
    input: {} as FormInput,
  },
  actors: {
    load: fromPromise<FormOutcome, void>(async () => ({
      ok: false,
      error: { status: 0, code: 'NOT_CONFIGURED', message: '未配置数据来源' },
    })),
    submit: fromPromise<FormOutcome, { values: FormValues }>(async () => ({
      ok: false,
      error: { status: 0, code: 'NOT_CONFIGURED', message: '未配置提交' },
    })),
  },
  guards: {
    needsLoad: ({ context }) => context.shouldLoad,
    succeeded: (_, params: { outcome: FormOutcome }) => params.outcome.ok,
    isValid: ({ context }) => Object.keys(context.validate(context.values)).length === 0,
    isDirty: ({ context }) => !same(context.values, context.initial),
  },
  actions: {
    showValidation: assign(({ context }) => ({ errors: context.validate(context.values), message: null })),
  },
}).createMachine({
  id: 'form',
  context: ({ input }) => ({
    values: input.values,
    initial: input.values,
    errors: {},
    message: null,
    saved: undefined,
    validate: input.validate,
    shouldLoad: input.load ?? false,
  }),
  initial: 'start',
  states: {
    start: {
      always: [{ guard: 'needsLoad', target: 'loading' }, { target: 'editing' }],
    },
    loading: {
      description: 'The record is read before it can be edited; the form shows a loading state.',
      invoke: {
        id: 'load',
        src: 'load',
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => ({ outcome: event.output }) },
            target: 'editing',
            actions: assign(({ event }) => {
              const values = (event.output.ok ? event.output.value : {}) as FormValues;
              return { values, initial: values, message: null };
            }),
          },
          {
            target: 'loadFailed',
            actions: assign(({ event }) => ({
              message: event.output.ok ? null : event.output.error.message,
            })),
          },
        ],
        onError: { target: 'loadFailed', actions: assign({ message: '加载失败，请重试' }) },
      },
    },
    loadFailed: {
      on: { retry: 'loading', 'form.leave': 'left' },
    },
    editing: {
      on: {
        'form.change': {
          actions: assign(({ context, event }) => {
            const { [event.field]: _cleared, ...errors } = context.errors;
            return { values: { ...context.values, [event.field]: event.value }, errors, message: null };
          }),
        },
        'form.submit': [{ guard: 'isValid', target: 'submitting' }, { actions: 'showValidation' }],
        'form.leave': [{ guard: 'isDirty', target: 'confirmingLeave' }, { target: 'left' }],
      },
    },
    submitting: {
      invoke: {
        id: 'submit',
        src: 'submit',
        input: ({ context }) => ({ values: context.values }),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => ({ outcome: event.output }) },
            target: 'saved',
            actions: assign(({ event }) => ({ saved: event.output.ok ? event.output.value : undefined })),
          },
          {
            description: 'The server refused: its field errors go on the fields, anything else on the form.',
            target: 'editing',
            actions: assign(({ event }) => {
              const errors = fieldErrorsOf(event.output);
              const message = event.output.ok ? null : event.output.error.message;
              return { errors, message: Object.keys(errors).length ? null : message };
            }),
          },
        ],
        onError: { target: 'editing', actions: assign({ message: '提交失败，请重试' }) },
      },
    },
    confirmingLeave: {
      description: 'Leaving with unsaved changes asks first.',
      on: { 'leave.confirm': 'left', 'leave.cancel': 'editing' },
    },
    saved: { type: 'final' },
    left: { type: 'final' },
  },
});

export type FormSnapshot = SnapshotFrom<typeof formMachine>;
