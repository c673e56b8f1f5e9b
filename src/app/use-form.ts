/**
 * Runs the shared form machine for one form: `submit` (and `load`, when editing by id) are calls over `src/http`
 * turned into values by `toOutcome`; validation is the shared zod schema's. Returns the actor and its view.
 */
import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { fromPromise } from 'xstate';
import type { z } from 'zod';
import { toOutcome } from '../http/outcome';
import { formMachine } from '../machines/shared/form.machine';
import * as sel from '../machines/shared/form.selectors';
import type { FieldErrors, FormValues } from '../machines/shared/form.types';

/** The schema's messages per field path, as the form shows them. */
export function schemaErrors(schema: z.ZodType, values: FormValues): FieldErrors {
  const r = schema.safeParse(values);
  if (r.success) return {};
  const out: FieldErrors = {};
  for (const issue of r.error.issues) out[issue.path.join('.') || '_root'] ??= issue.message;
  return out;
}

export function useForm(opts: {
  schema: z.ZodType;
  values: FormValues;
  submit: (values: FormValues) => Promise<unknown>;
  load?: () => Promise<unknown>;
}) {
  const logic = useMemo(
    () =>
      formMachine.provide({
        actors: {
          submit: fromPromise(({ input }) => toOutcome(() => opts.submit(input.values))),
          load: fromPromise(() => toOutcome(() => opts.load?.() ?? Promise.resolve(opts.values))),
        },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one machine per mounted form
    [],
  );
  const actor = useActorRef(logic, {
    input: { values: opts.values, load: !!opts.load, validate: (v) => schemaErrors(opts.schema, v) },
  });
  const view = useSelector(actor, (s) => ({
    values: sel.selectValues(s),
    errors: sel.selectErrors(s),
    message: sel.selectMessage(s),
    loading: sel.selectIsLoading(s),
    submitting: sel.selectIsSubmitting(s),
    asksToLeave: sel.selectAsksToLeave(s),
    saved: sel.selectIsSaved(s),
    left: sel.selectHasLeft(s),
  }));
  const change = (field: string, value: unknown) => actor.send({ type: 'form.change', field, value });
  return { actor, view, change };
}
