import { useId, type ReactNode } from 'react';

export interface FormFieldProps {
  label: string;
  /** The validation message (the shared schema's, or the server's for this field). */
  error?: string | undefined;
  hint?: string;
  /** The control, given the id that its label points at. */
  children: (id: string) => ReactNode;
}

/** A labelled form control with its validation message under it. */
export function FormField({ label, error, hint, children }: FormFieldProps) {
  const id = useId();
  return (
    <div className="w-full">
      <label htmlFor={id} className="label pb-1 text-sm font-medium">
        {label}
      </label>
      {children(id)}
      {error ? (
        <p className="mt-1 text-xs text-error" role="alert">
          {error}
        </p>
      ) : (
        hint && <p className="mt-1 text-xs text-base-content/60">{hint}</p>
      )}
    </div>
  );
}
