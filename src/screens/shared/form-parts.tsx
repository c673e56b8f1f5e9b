import { useEffect, type ReactNode } from 'react';
import type { useForm } from '../../app/use-form';
import { ConfirmDialog } from '../../ui';
import { FormField } from '../../ui/form-field';

/** What `useForm` returns: the form machine's actor, its view, and `change`. */
export type Form = ReturnType<typeof useForm>;

/**
 * A staff form on the shared form machine: submits through the machine, then the form's message (a server error
 * that names no field), 取消 / 保存, and the warning before leaving with unsaved changes. `onDone(saved)` is called
 * once the form is saved or left.
 */
export function StaffForm({
  form,
  onDone,
  children,
  submitLabel = '保存',
  submittingLabel = '保存中…',
  leaveTitle = '放弃未保存的修改？',
  leaveLabel = '放弃修改',
  onSubmit,
  className = 'space-y-3',
}: {
  form: Form;
  onDone: (saved: boolean) => void;
  children: ReactNode;
  submitLabel?: string;
  submittingLabel?: string;
  /** The question before leaving with unsaved changes, and its confirm button. */
  leaveTitle?: string;
  leaveLabel?: string;
  /** Instead of submitting at once (e.g. to confirm first); call `form.actor.send({ type: 'form.submit' })`. */
  onSubmit?: () => void;
  className?: string;
}) {
  const { actor, view } = form;
  useEffect(() => {
    if (view.saved || view.left) onDone(view.saved);
  }, [view.saved, view.left, onDone]);
  return (
    <form
      className={className}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (onSubmit) onSubmit();
        else actor.send({ type: 'form.submit' });
      }}
    >
      {children}
      {view.message && (
        <p className="alert alert-error text-sm" role="alert">
          {view.message}
        </p>
      )}
      <div className="flex gap-2 pt-2">
        <button type="button" className="btn flex-1" onClick={() => actor.send({ type: 'form.leave' })}>
          取消
        </button>
        <button type="submit" className="btn btn-primary flex-1" disabled={view.submitting}>
          {view.submitting ? submittingLabel : submitLabel}
        </button>
      </div>
      <ConfirmDialog
        open={view.asksToLeave}
        title={leaveTitle}
        message="离开后，本次填写的内容不会保存。"
        confirmLabel={leaveLabel}
        danger
        onConfirm={() => actor.send({ type: 'leave.confirm' })}
        onCancel={() => actor.send({ type: 'leave.cancel' })}
      />
    </form>
  );
}

/** A labelled text input bound to one field of the form, with that field's message. */
export function TextField({
  form,
  name,
  label,
  hint,
  placeholder,
  maxLength,
  inputMode,
  rows,
}: {
  form: Form;
  name: string;
  label: string;
  hint?: string;
  placeholder?: string;
  maxLength?: number;
  inputMode?: 'numeric' | 'decimal';
  /** A textarea of this many rows instead of one line. */
  rows?: number;
}) {
  const value = String(form.view.values[name] ?? '');
  const change = (v: string) => form.change(name, v);
  return (
    <FormField label={label} error={form.view.errors[name]} hint={hint}>
      {(id) =>
        rows ? (
          <textarea
            id={id}
            className="input h-auto w-full py-2"
            rows={rows}
            value={value}
            placeholder={placeholder}
            onChange={(e) => change(e.target.value)}
          />
        ) : (
          <input
            id={id}
            className="input w-full"
            value={value}
            placeholder={placeholder}
            maxLength={maxLength}
            inputMode={inputMode}
            onChange={(e) => change(e.target.value)}
          />
        )
      }
    </FormField>
  );
}

/** The 启用 switch of a form (field `active`). */
export function ActiveField({ form, label }: { form: Form; label: string }) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <input
        type="checkbox"
        className="toggle toggle-primary toggle-sm"
        checked={form.view.values.active === true}
        onChange={(e) => form.change('active', e.target.checked)}
      />
      {label}
    </label>
  );
}

/** A labelled select bound to one field of the form: one option per entry of `options` (value → label). */
export function SelectField({
  form,
  name,
  label,
  options,
}: {
  form: Form;
  name: string;
  label: string;
  options: Record<string, string>;
}) {
  return (
    <FormField label={label} error={form.view.errors[name]}>
      {(id) => (
        <select
          id={id}
          className="select w-full"
          value={String(form.view.values[name] ?? '')}
          onChange={(e) => form.change(name, e.target.value)}
        >
          {Object.entries(options).map(([k, text]) => (
            <option key={k} value={k}>
              {text}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
}
