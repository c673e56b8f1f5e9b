import type { useMoneyAction } from '../../app/use-money-action';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { FormField } from '../../ui/form-field';
import { Sheet } from '../../ui/sheet';

export interface ActionTexts {
  /** The sheet's title and the input's label (for an action that takes an input). */
  title: string;
  label?: string;
  placeholder?: string;
  inputMode?: 'decimal' | 'text';
  /** The confirmation, from the value typed. */
  confirmTitle: string;
  confirmMessage: (value: string) => string;
  confirmLabel: string;
  danger?: boolean;
}

/**
 * The dialogs of one money-moving action: the input sheet, the confirmation (busy while sending, so a double tap
 * sends once), and a failure with a retry (the same Idempotency-Key) or a way back to the input.
 */
export function MoneyActionDialog({
  money,
  texts,
}: {
  money: ReturnType<typeof useMoneyAction>;
  texts: ActionTexts | null;
}) {
  const { view, send } = money;
  if (!texts) return null;
  return (
    <>
      <Sheet open={view.editing} title={texts.title} onClose={() => send({ type: 'close' })}>
        <form
          className="flex flex-col gap-4"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            send({ type: 'submit' });
          }}
        >
          <FormField label={texts.label ?? texts.title} error={view.error ?? undefined}>
            {(id) => (
              <input
                id={id}
                className={`input w-full ${view.error ? 'input-error' : ''}`}
                inputMode={texts.inputMode ?? 'text'}
                placeholder={texts.placeholder}
                autoComplete="off"
                value={view.value}
                onChange={(e) => send({ type: 'change', value: e.target.value })}
              />
            )}
          </FormField>
          <div className="flex justify-end gap-2">
            <button type="button" className="btn btn-ghost" onClick={() => send({ type: 'close' })}>
              取消
            </button>
            <button type="submit" className="btn btn-primary">
              下一步
            </button>
          </div>
        </form>
      </Sheet>
      <ConfirmDialog
        open={view.confirming || view.sending}
        busy={view.sending}
        danger={texts.danger}
        title={texts.confirmTitle}
        message={texts.confirmMessage(view.value)}
        confirmLabel={texts.confirmLabel}
        cancelLabel="返回"
        onConfirm={() => send({ type: 'confirm' })}
        onCancel={() => send({ type: 'back' })}
      />
      <ConfirmDialog
        open={view.failed}
        title={view.canRetry ? '网络异常，未确认是否提交成功' : '操作未成功'}
        message={
          view.canRetry
            ? `${view.failure?.message ?? ''}。重试不会重复提交。`
            : (view.failure?.message ?? '操作未成功')
        }
        confirmLabel={view.canRetry ? '重试' : '返回'}
        cancelLabel="关闭"
        onConfirm={() => send({ type: view.canRetry ? 'retry' : 'back' })}
        onCancel={() => send({ type: 'close' })}
      />
    </>
  );
}
