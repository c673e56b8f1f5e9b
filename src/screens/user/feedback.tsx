import { useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import { FEEDBACK_CATEGORIES, FeedbackRequestSchema, idFromText, type FeedbackItem } from '../../domain/api';
import { isThrownRequestError } from '../../domain/outcome';
import { WECHAT_AUTH_REQUIRED, wechatLoginPath } from '../../http/client';
import { userApi } from '../../http/user-api';
import { PageHeader, Toast } from '../../ui';
import { shortTime } from '../../ui/user/format';
import { PagedList } from '../../ui/user/paged-list';
import { SignInPrompt } from '../../ui/user/sign-in-prompt';
import { usePaged } from '../../app/user/use-paged';

type Category = keyof typeof FEEDBACK_CATEGORIES;

/** `/user/feedback`: file feedback (category, text, optional device) and read the merchant's replies. */
export default function FeedbackScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const [toast, setToast] = useState<string | null>(null);
  const [listKey, setListKey] = useState(0);
  const onSignIn = () => navigate(wechatLoginPath('/user/feedback'));
  return (
    <UserPage screen="user-feedback">
      <PageHeader title={route.title} onBack={() => navigate(route.back ?? '/user/profile')} />
      <main className="space-y-4 px-4 pt-4 pb-10">
        <FeedbackForm
          onSent={() => {
            setToast('提交成功，商家会尽快回复');
            setListKey((k) => k + 1);
          }}
          onSignIn={onSignIn}
        />
        <h2 className="text-sm font-medium text-base-content/70">我的反馈</h2>
        <FeedbackList key={listKey} onSignIn={onSignIn} />
      </main>
      <Toast message={toast} kind="success" onClose={() => setToast(null)} />
    </UserPage>
  );
}

/** The form: category, description (5 to 500 characters) and the device (from the address when it came from one). */
function FeedbackForm({ onSent, onSignIn }: { onSent: () => void; onSignIn: () => void }) {
  const search = useSearch();
  const [category, setCategory] = useState<Category>('device');
  const [content, setContent] = useState('');
  const [deviceId, setDeviceId] = useState(() => new URLSearchParams(search).get('device_id') ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = FeedbackRequestSchema.safeParse({
      category,
      content,
      // The field is text; ids in a JSON body are numbers (anything else fails validation with its message).
      device_id: idFromText(deviceId),
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await userApi.sendFeedback(parsed.data);
      setContent('');
      onSent();
    } catch (err) {
      if (isThrownRequestError(err) && err.code === WECHAT_AUTH_REQUIRED) onSignIn();
      else setErrors({ form: isThrownRequestError(err) ? err.message : '提交失败，请重试' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="space-y-3 rounded-box bg-base-100 p-4" onSubmit={(e) => void submit(e)} noValidate>
      <CategoryField value={category} onChange={setCategory} />
      <label className="block">
        <span className="mb-1 block text-sm">问题描述</span>
        <textarea
          className="h-28 w-full rounded-field border border-base-300 bg-base-100 p-3 text-sm"
          maxLength={500}
          placeholder="请描述遇到的问题（至少 5 个字）"
          value={content}
          onChange={(e) => setContent(e.target.value)}
        />
        <span className="mt-1 flex justify-between text-xs">
          <span className="text-error">{errors.content}</span>
          <span className="text-base-content/50" data-testid="counter">
            {content.trim().length}/500
          </span>
        </span>
      </label>
      <label className="block">
        <span className="mb-1 block text-sm">设备编号（选填）</span>
        <input
          className="input w-full"
          inputMode="numeric"
          value={deviceId}
          onChange={(e) => setDeviceId(e.target.value)}
        />
        {errors.device_id && <span className="text-xs text-error">请填写正确的设备编号</span>}
      </label>
      {errors.form && <p className="text-sm text-error">{errors.form}</p>}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {busy && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
        提交反馈
      </button>
    </form>
  );
}

/** 问题类型: one of the feedback categories. */
function CategoryField({ value, onChange }: { value: Category; onChange: (c: Category) => void }) {
  return (
    <label className="block">
      <span className="mb-1 block text-sm">问题类型</span>
      <select className="select w-full" value={value} onChange={(e) => onChange(e.target.value as Category)}>
        {Object.entries(FEEDBACK_CATEGORIES).map(([key, label]) => (
          <option key={key} value={key}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

function FeedbackList({ onSignIn }: { onSignIn: () => void }) {
  const list = usePaged((page) => userApi.feedback(page));
  return (
    <PagedList<FeedbackItem>
      {...list}
      onRetry={list.retry}
      onMore={list.loadMore}
      emptyTitle="还没有提交过反馈"

      signIn={list.error?.code === WECHAT_AUTH_REQUIRED ? <SignInPrompt onSignIn={onSignIn} /> : undefined}
      render={(f) => (
        <li key={f.id} className="list-row block" data-testid="feedback-row">
          <p className="text-xs text-base-content/50">
            {FEEDBACK_CATEGORIES[f.category]} · {shortTime(f.created_at)}
            {f.device_name ? ` · ${f.device_name}` : ''}
          </p>
          <p className="mt-1 text-sm break-words">{f.content}</p>
          {f.reply ? (
            <p className="mt-2 rounded-box bg-base-200 p-2 text-sm">
              <span className="font-medium text-primary">商家回复：</span>
              {f.reply}
            </p>
          ) : (
            <p className="mt-1 text-xs text-base-content/40">等待商家回复</p>
          )}
        </li>
      )}
    />
  );
}
