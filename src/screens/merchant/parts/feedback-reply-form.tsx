import { useForm } from '../../../app/use-form';
import { FeedbackReplySchema, type InboxFeedback } from '../../../domain/feedback-inbox.schema';
import { feedbackInboxApi } from '../../../http/people-api';
import { FormField } from '../../../ui/form-field';
import { StaffForm } from '../../shared/form-parts';

/** Reply to one feedback (or change the reply); `onDone(true)` after a save. */
export function FeedbackReplyForm({
  item,
  onDone,
}: {
  item: InboxFeedback;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: FeedbackReplySchema,
    values: { reply: item.reply ?? '' },
    submit: (v) => feedbackInboxApi.reply(item.id, FeedbackReplySchema.parse(v).reply),
  });
  const { view, change } = form;
  return (
    <StaffForm
      form={form}
      onDone={onDone}
      submitLabel="发送回复"
      submittingLabel="发送中…"
      leaveTitle="放弃未发送的回复？"
      leaveLabel="放弃"
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
    </StaffForm>
  );
}
