import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import { useRequest } from '../../app/use-request';
import type { StopResponse, UsingSession } from '../../domain/api';
import { formatFen } from '../../domain/money';
import { WECHAT_AUTH_REQUIRED, isApiRequestError, wechatLoginPath } from '../../http/client';
import { userApi } from '../../http/user-api';
import { ConfirmDialog, EmptyState, ErrorState, Loading, Money, PageHeader } from '../../ui';
import { Countdown } from '../../ui/user/countdown';

const STATUS: Record<UsingSession['status'], string> = {
  starting: '启动中',
  running: '运行中',
  ended: '已结束',
  stopped: '已结束',
  failed: '启动失败',
};

/** `/user/using`: the running sessions with a live countdown, and 结束使用 (unused minutes refunded). */
export default function UsingScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const using = useRequest(userApi.using);
  const [stopping, setStopping] = useState<UsingSession | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const items = using.data?.items ?? [];
  const [skewMs, setSkewMs] = useState(0);
  useEffect(() => {
    const t = using.data?.server_time;
    if (t) setSkewMs(Date.parse(t) - Date.now());
  }, [using.data]);
  const starting = items.some((i) => i.status === 'starting');

  // A session still waiting for the device's acknowledgement: look again shortly.
  useEffect(() => {
    if (!starting) return;
    const t = setTimeout(() => using.actor.send({ type: 'request.fetch' }), 2000);
    return () => clearTimeout(t);
  }, [starting, using.actor, using.data]);

  async function stop(session: UsingSession) {
    setBusy(true);
    try {
      const ended: StopResponse = await userApi.stop(session.order_no);
      setResult({ ok: true, text: `已结束使用，未使用时长退款 ${formatFen(ended.refund_fen)} 已退回余额` });
    } catch (err) {
      setResult({ ok: false, text: isApiRequestError(err) ? err.message : '结束失败，请重试' });
    } finally {
      setBusy(false);
      setStopping(null);
      using.refresh();
    }
  }

  let body;
  if (using.loading && !using.data) body = <Loading />;
  else if (using.error?.code === WECHAT_AUTH_REQUIRED)
    body = (
      <EmptyState icon="" title="请先登录">
        <button
          type="button"
          className="btn btn-success"
          onClick={() => navigate(wechatLoginPath('/user/using'))}
        >
          微信登录
        </button>
      </EmptyState>
    );
  else if (using.error) body = <ErrorState message={using.error.message} onRetry={using.retry} />;
  else if (items.length === 0)
    body = <EmptyState icon="" title="暂无使用中的设备" description="扫描设备上的二维码即可开始使用" />;
  else
    body = items.map((s) => (
      <section
        key={s.order_no}
        className="rounded-box bg-base-100 p-5 text-center"
        data-testid="using-session"
      >
        <div className="flex items-center justify-between text-left">
          <p className="font-semibold">{s.device_name}</p>
          <span
            className={`rounded-full px-2.5 py-0.5 text-xs ${
              s.status === 'running' ? 'bg-success text-success-content' : 'bg-warning text-warning-content'
            }`}
          >
            {STATUS[s.status]}
          </span>
        </div>
        <p className="mt-4 text-xs text-base-content/60">剩余时间</p>
        {s.status === 'running' && s.ends_at ? (
          <Countdown endsAt={s.ends_at} skewMs={skewMs} onElapsed={using.refresh} />
        ) : (
          <span className="loading loading-spinner loading-md" aria-label="等待设备启动" />
        )}
        <div className="mt-4 flex justify-around text-sm">
          <span>
            时长 <b>{s.minutes}</b> 分钟
          </span>
          <span>
            已支付 <Money fen={s.amount_fen} className="font-semibold" />
          </span>
        </div>
        {s.status === 'running' && (
          <button
            type="button"
            className="btn btn-error btn-outline btn-block mt-4"
            onClick={() => setStopping(s)}
          >
            结束使用
          </button>
        )}
      </section>
    ));

  return (
    <UserPage screen="user-using">
      <PageHeader title={route.title} onBack={() => navigate('/user/profile')} />
      <main className="space-y-4 px-4 pt-4 pb-10">
        {result && (
          <div
            className={`alert ${result.ok ? 'alert-success' : 'alert-error'} text-sm`}
            role="status"
            data-testid="stop-result"
          >
            {result.text}
          </div>
        )}
        {body}
        <div className="flex justify-center gap-2">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={() => navigate('/user/consumption-history')}
          >
            消费记录
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => navigate('/user/profile')}>
            个人中心
          </button>
        </div>
      </main>
      <ConfirmDialog
        open={stopping !== null}
        title="结束使用"
        message="提前结束后设备将停止运行，未使用的分钟数将按比例退款到余额。确定结束吗？"
        confirmLabel="结束使用"
        danger
        busy={busy}
        onConfirm={() => stopping && void stop(stopping)}
        onCancel={() => setStopping(null)}
      />
    </UserPage>
  );
}
