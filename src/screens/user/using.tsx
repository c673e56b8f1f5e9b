import { useSelector } from '@xstate/react';
import {
  selectList,
  selectLoadFailed,
  selectSignedOut,
  selectStopDialogOpen,
  selectStopResult,
  selectStopping,
  selectUsingError,
} from '../../machines/user-using.selectors';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import type { UsingSession } from '../../domain/api';
import { formatFen } from '../../domain/money';
import { useUsingActor } from '../../app/user/use-using-actor';
import { ConfirmDialog, EmptyState, ErrorState, Loading, Money, PageHeader } from '../../ui';
import { Countdown } from '../../ui/user/countdown';
import { UserPage } from '../../ui/user/user-page';

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
  const actor = useUsingActor(navigate);
  const signedOut = useSelector(actor, selectSignedOut);
  const loadFailed = useSelector(actor, selectLoadFailed);
  const stopDialogOpen = useSelector(actor, selectStopDialogOpen);
  const stopping = useSelector(actor, selectStopping);
  const list = useSelector(actor, selectList);
  const error = useSelector(actor, selectUsingError);
  const result = useSelector(actor, selectStopResult);
  const items = list?.items ?? [];

  let body;
  if (signedOut)
    body = (
      <EmptyState icon="" title="请先登录">
        <button
          type="button"
          className="btn btn-success"
          onClick={() => actor.send({ type: 'signin.start' })}
        >
          微信登录
        </button>
      </EmptyState>
    );
  else if (loadFailed)
    body = (
      <ErrorState message={error?.message ?? '加载失败'} onRetry={() => actor.send({ type: 'retry' })} />
    );
  else if (!list) body = <Loading />;
  else if (items.length === 0)
    body = <EmptyState icon="" title="暂无使用中的设备" description="扫描设备上的二维码即可开始使用" />;
  else
    body = items.map((x) => (
      <SessionCard
        key={x.order_no}
        session={x}
        skewMs={list.skew_ms}
        onElapsed={() => actor.send({ type: 'refresh' })}
        onStop={() => actor.send({ type: 'stop.ask', order_no: x.order_no })}
      />
    ));

  return (
    <UserPage screen="user-using">
      <PageHeader title={route.title} onBack={() => navigate('/user/profile')} />
      <main className="space-y-4 px-4 pt-4 pb-10">
        {result && <StopResult result={result} />}
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
        open={stopDialogOpen}
        title="结束使用"
        message="提前结束后设备将停止运行，未使用的分钟数将按比例退款到余额。确定结束吗？"
        confirmLabel="结束使用"
        danger
        busy={stopping}
        onConfirm={() => actor.send({ type: 'stop.confirm' })}
        onCancel={() => actor.send({ type: 'stop.cancel' })}
      />
    </UserPage>
  );
}

/** How the early stop went: the refund and where it goes, or why it failed. */
function StopResult({ result }: { result: NonNullable<ReturnType<typeof selectStopResult>> }) {
  return (
    <div
      className={`alert ${result.ok ? 'alert-success' : 'alert-error'} text-sm`}
      role="status"
      data-testid="stop-result"
    >
      {result.ok
        ? `已结束使用，未使用时长退款 ${formatFen(result.refund_fen)} ${result.refund_to === 'wechat' ? '将原路退回微信，可在消费记录查看进度' : '已退回余额'}`
        : result.message}
    </div>
  );
}

/** One session: device, status, the countdown (or a spinner while it starts), minutes, amount and 结束使用. */
function SessionCard({
  session: x,
  skewMs,
  onElapsed,
  onStop,
}: {
  session: UsingSession;
  skewMs: number;
  onElapsed: () => void;
  onStop: () => void;
}) {
  return (
    <section className="rounded-box bg-base-100 p-5 text-center" data-testid="using-session">
      <div className="flex items-center justify-between text-left">
        <p className="font-semibold">{x.device_name}</p>
        <span
          className={`rounded-full px-2.5 py-0.5 text-xs ${
            x.status === 'running' ? 'bg-success text-success-content' : 'bg-warning text-warning-content'
          }`}
        >
          {STATUS[x.status]}
        </span>
      </div>
      <p className="mt-4 text-xs text-base-content/60">剩余时间</p>
      {x.status === 'running' && x.ends_at ? (
        <Countdown endsAt={x.ends_at} skewMs={skewMs} onElapsed={onElapsed} />
      ) : (
        <span className="loading loading-spinner loading-md" aria-label="等待设备启动" />
      )}
      <div className="mt-4 flex justify-around text-sm">
        <span>
          时长 <b>{x.minutes}</b> 分钟
        </span>
        <span>
          已支付 <Money fen={x.amount_fen} className="font-semibold" />
        </span>
      </div>
      {x.status === 'running' && (
        <button type="button" className="btn btn-error btn-outline btn-block mt-4" onClick={onStop}>
          结束使用
        </button>
      )}
    </section>
  );
}
