import { useEffect } from 'react';
import { useForm } from '../../../app/use-form';
import { FeedbackReplySchema, type InboxFeedback } from '../../../domain/feedback-inbox.schema';
import { feedbackInboxApi } from '../../../http/people-api';
import { ConfirmDialog } from '../../../ui';
import { FormField } from '../../../ui/form-field';

/** Reply to one feedback (or change the reply); `onDone(true)` after a save. */
export function FeedbackReplyForm({
  item,
  onDone,
}: {
  item: InboxFeedback;
  onDone: (saved: boolean) => void;
}) {
  const { actor, view, change } = useForm({
    schema: FeedbackReplySchema,
    values: { reply: item.reply ?? '' },
    submit: (v) => feedbackInboxApi.reply(item.id, FeedbackReplySchema.parse(v).reply),
  });
  useEffect(() => {
    if (view.saved || view.left) onDone(view.saved);
  }, [view.saved, view.left, onDone]);
  return (
    <form
      className="space-y-3"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        actor.send({ type: 'form.submit' });
      }}
    >
      <p className="rounded-box bg-base-200 p-3 text-sm whitespace-pre-wrap">{item.content}</p>
      <FormField label="回复" error={view.errors.reply} hint="会员在“我的反馈”中看到，最多 500 字">
        {(id) => (
          <textarea
            id={id}
            className="input h-auto w-full py-2"
            rows={4}
            value={String(view.values.reply ?? '')}
            placeholder="请输入回复内容"
            onChange={(e) => change('reply', e.target.value)}
          />
        )}
      </FormField>
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
          {view.submitting ? '发送中…' : '发送回复'}
        </button>
      </div>
      <ConfirmDialog
        open={view.asksToLeave}
        title="放弃未发送的回复？"
        message="离开后，本次填写的内容不会保存。"
        confirmLabel="放弃"
        danger
        onConfirm={() => actor.send({ type: 'leave.confirm' })}
        onCancel={() => actor.send({ type: 'leave.cancel' })}
      />
    </form>
  );
}
