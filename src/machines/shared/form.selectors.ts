/** Named, pure selectors over the form machine's snapshot: screens read these, never state names. */
import type { FormSnapshot } from './form.machine';

export const selectValues = (s: FormSnapshot) => s.context.values;
export const selectErrors = (s: FormSnapshot) => s.context.errors;
export const selectMessage = (s: FormSnapshot) => s.context.message;
export const selectIsLoading = (s: FormSnapshot) => s.matches('start') || s.matches('loading');
export const selectLoadFailed = (s: FormSnapshot) => s.matches('loadFailed');
export const selectIsSubmitting = (s: FormSnapshot) => s.matches('submitting');
export const selectIsEditable = (s: FormSnapshot) => s.matches('editing');
export const selectAsksToLeave = (s: FormSnapshot) => s.matches('confirmingLeave');
export const selectIsSaved = (s: FormSnapshot) => s.matches('saved');
export const selectHasLeft = (s: FormSnapshot) => s.matches('left');
export const selectSaved = (s: FormSnapshot) => s.context.saved;
