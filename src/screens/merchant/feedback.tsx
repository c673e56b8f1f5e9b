import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { FEEDBACK_CATEGORIES } from '../../domain/api';
import { FEEDBACK_STATES, type InboxFeedback } from '../../domain/feedback-inbox.schema';
import { feedbackInboxApi } from '../../http/people-api';
import { Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { shortTime } from '../../ui/user/format';
import { StaffPage } from '../shared/staff-page';
import { useResourceList } from '../shared/use-resource-list';
import { FeedbackReplyForm } from './parts/feedback-reply-form';

const PAGE_SIZE = 20;
type State = keyof typeof FEEDBACK_STATES | '';

type Filter = { q: string; state: State; page: number };

/** `/merchant/feedback`: members' feedback about the merchant's devices; reply in a sheet. */
export default function FeedbackInboxScreen({ route }: ScreenProps) {
  const { filter, refilter, list, listProps } = useResourceList(
    feedbackInboxApi.list,
    { q: '', state: 'open', page: 1 } as Filter,
    PAGE_SIZE,
    (f) => ({ q: f.q, page: f.page, page_size: f.page_size, state: f.state || undefined }),
  );
  const [replying, setReplying] = useState<InboxFeedback | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const onDone = useCallback(
    (saved: boolean) => {
      setReplying(null);
      if (saved) {
        setToast('回复已发送，会员可在“我的反馈”中看到');
        list.refresh();
      }
    },
    [list],
  );
  return (
    <StaffPage route={route} description="会员对本商户设备的反馈，回复后会员在“我的反馈”中可以看到。">
      <ResourceList
        {...listProps}
        keyOf={(f) => f.id}
        toolbar={<InboxToolbar filter={filter} onFilter={refilter} openCount={list.data?.open} />}
        emptyTitle={filter.state === 'open' ? '没有待回复的反馈' : '暂无反馈'}
        emptyDescription="会员在使用页提交的反馈会出现在这里。"
        renderItem={(f) => <FeedbackRow item={f} onReply={() => setReplying(f)} />}
      />
      <Sheet open={replying !== null} title="回复反馈" onClose={() => setReplying(null)}>
        {replying && <FeedbackReplyForm item={replying} onDone={onDone} />}
      </Sheet>
      {toast && <Toast message={toast} kind="success" onClose={() => setToast(null)} />}
    </StaffPage>
  );
}

/** The tabs 待回复（n） / 已回复 / 全部, and the search. */
function InboxToolbar({
  filter,
  onFilter,
  openCount,
}: {
  filter: Filter;
  onFilter: (change: Partial<Filter>) => void;
  openCount: number | undefined;
}) {
  return (
    <div className="space-y-2">
      <div role="tablist" className="tabs tabs-box tabs-sm">
        {(['open', 'replied', ''] as State[]).map((s) => (
          <button
            key={s || 'all'}
            type="button"
            role="tab"
            className={`tab flex-1 ${filter.state === s ? 'tab-active' : ''}`}
            aria-selected={filter.state === s}
            onClick={() => onFilter({ state: s })}
          >
            {s ? FEEDBACK_STATES[s] : '全部'}
            {s === 'open' && openCount !== undefined ? `（${openCount}）` : ''}
          </button>
        ))}
      </div>
      <input
        type="search"
        className="input w-full"
        placeholder="搜索反馈内容或会员昵称"
        aria-label="搜索反馈"
        value={filter.q}
        onChange={(e) => onFilter({ q: e.target.value })}
      />
    </div>
  );
}

/** One feedback: category, member, time, the text and device, and the reply (or 回复). */
function FeedbackRow({ item: f, onReply }: { item: InboxFeedback; onReply: () => void }) {
  return (
    <div className="space-y-1 p-3" data-testid="feedback-row">
      <div className="flex items-center gap-2 text-xs text-base-content/60">
        <span className="badge badge-sm">{FEEDBACK_CATEGORIES[f.category]}</span>
        <span className="truncate">{f.member.nickname || `会员 ${f.member.id}`}</span>
        <span className="ml-auto shrink-0">{shortTime(f.created_at)}</span>
      </div>
      <p className="text-sm whitespace-pre-wrap">{f.content}</p>
      {f.device && <p className="text-xs text-base-content/60">设备：{f.device.name}</p>}
      {f.reply ? (
        <div className="rounded-box bg-base-200 p-2 text-sm">
          <p className="text-xs text-base-content/60">
            {f.replied_by ?? '商户'} 回复于 {f.replied_at ? shortTime(f.replied_at) : ''}
          </p>
          <p className="whitespace-pre-wrap">{f.reply}</p>
          <button type="button" className="btn btn-ghost btn-xs mt-1" onClick={onReply}>
            修改回复
          </button>
        </div>
      ) : (
        <button type="button" className="btn btn-primary btn-sm" onClick={onReply}>
          回复
        </button>
      )}
    </div>
  );
}
