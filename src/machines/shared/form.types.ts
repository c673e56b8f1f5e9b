/** Types of the shared form machine (`form.machine.ts`). */
import type { Outcome } from '../../domain/outcome';

/** Messages per field path (`name`, `items.1.level`); `_root` for the form as a whole. */
export type FieldErrors = Record<string, string>;

/** An answer of the server as a value: the saved record, or its error with the fields it names (the one Outcome). */
export type FormOutcome = Outcome<unknown>;

export type FormValues = Record<string, unknown>;

export interface FormInput {
  /** The values to start from (a new record's defaults, or the record when `load` is false). */
  values: FormValues;
  /** Load the record first through the `load` actor (an edit screen opened by URL). */
  load?: boolean;
  /** The shared schema's check: messages per field, empty when the values may be sent. */
  validate: (values: FormValues) => FieldErrors;
}

export interface FormContext {
  values: FormValues;
  /** What the values were when loaded: the form is dirty when they differ. */
  initial: FormValues;
  errors: FieldErrors;
  /** A message for the whole form (a server error without fields, a failed load). */
  message: string | null;
  /** The server's answer once saved. */
  saved: unknown;
  validate: FormInput['validate'];
  shouldLoad: boolean;
}

export type FormEvent =
  | { type: 'form.change'; field: string; value: unknown }
  | { type: 'form.submit' }
  | { type: 'form.leave' }
  | { type: 'leave.confirm' }
  | { type: 'leave.cancel' }
  | { type: 'retry' };
