import { useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import type { BoardDevice, BoardSession } from '../../domain/device-control.schema';
import { formatFen } from '../../domain/money';
import { employeeApi } from '../../http/employee-api';
import { toOutcome } from '../../http/outcome';
import { ConfirmDialog, EmptyState, ErrorState, Loading, Toast } from '../../ui';
import { StaffPage } from '../shared/staff-page';
import { DeviceBoardList } from './parts/device-board-list';
import { useLiveRefresh } from './use-live-refresh';

const REFRESH_MS = 10_000;
const REFUND_TO = {
  wallet: '已退回会员余额',
  wechat: '将原路退回会员的微信，可在会员的消费记录查看进度',
  cash: '请将现金退还顾客',
  none: '免费服务，无需退款',
} as const;
/** Where the unused part of a session paid this way goes, said before the stop is confirmed. */
const STOP_REFUND: Record<BoardSession['method'], string> = {
  wallet: '未使用的时长按比例退回会员余额',
  wechat: '未使用的时长按比例原路退回会员的微信（微信支付）',
  cash: '未使用的时长按比例退款，现金需退还顾客',
  free: '免费服务，无需退款',
};

/** `/employee/device-charging`: the live board of the merchant's devices; stop a session with a pro-rata refund. */
export default function DeviceChargingScreen({ route }: ScreenProps) {
  const [venueId, setVenueId] = useState<number | undefined>(undefined);
  const board = useRequest(employeeApi.board, venueId);
  useLiveRefresh(board.refresh, REFRESH_MS);
  const [stopping, setStopping] = useState<BoardDevice | null>(null);
  const [busy, setBusy] = useState(false);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const skewMs = board.data ? Date.parse(board.data.now) - Date.now() : 0;

  const stop = async () => {
    if (!stopping) return;
    setBusy(true);
    const out = await toOutcome(() => employeeApi.stop(stopping.id));
    setBusy(false);
    setStopping(null);
    board.refresh();
    setToast(
      out.ok
        ? {
            kind: 'success',
            message: `已结束，退款 ${formatFen(out.value.refund_fen)}${out.value.refund_fen > 0 ? `，${REFUND_TO[out.value.refund_to]}` : ''}`,
          }
        : { kind: 'error', message: out.error.message },
    );
  };

  let body;
  if (board.loading && !board.data) body = <Loading />;
  else if (board.error && !board.data)
    body = <ErrorState message={board.error.message} onRetry={board.retry} />;
  else if (board.data && board.data.items.length === 0) body = <EmptyState title="暂无设备" />;
  else if (board.data)
    body = (
      <DeviceBoardList
        items={board.data.items}
        skewMs={skewMs}
        onStop={setStopping}
        onElapsed={board.refresh}
      />
    );

  const running = board.data?.items.filter((d) => d.session).length ?? 0;
  return (
    <StaffPage route={route} description="商户设备的实时状态与剩余时间，每 10 秒刷新。">
      <div className="space-y-3 p-4">
        <div className="flex items-center gap-2">
          <select
            className="select select-sm flex-1"
            aria-label="场地"
            value={venueId ?? ''}
            onChange={(e) => setVenueId(e.target.value ? Number(e.target.value) : undefined)}
          >
            <option value="">全部场地</option>
            {board.data?.venues.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name}
              </option>
            ))}
          </select>
          <span className="text-sm text-base-content/60">运行中 {running} 台</span>
        </div>
        {body}
      </div>
      <ConfirmDialog
        open={stopping !== null}
        busy={busy}
        danger
        title="结束使用"
        message={`结束「${stopping?.name ?? ''}」的本次使用？${stopping?.session ? STOP_REFUND[stopping.session.method] : '未使用的时长按比例退款'}。`}
        confirmLabel="结束"
        onConfirm={() => void stop()}
        onCancel={() => setStopping(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
