/** The rows of the live device board: status, online, what runs and the time left, counting down. */
import type { BoardDevice } from '../../../domain/device-control.schema';
import { Money } from '../../../ui';
import { Countdown } from '../../../ui/user/countdown';

const STATUS: Record<BoardDevice['status'], { label: string; badge: string }> = {
  idle: { label: '空闲', badge: 'badge-success' },
  running: { label: '运行中', badge: 'badge-warning' },
  offline: { label: '离线', badge: 'badge-ghost' },
  fault: { label: '故障', badge: 'badge-error' },
  disabled: { label: '已停用', badge: 'badge-ghost' },
};
const METHOD: Record<string, string> = { wallet: '余额', wechat: '微信', cash: '现金', free: '免费服务' };

export function DeviceBoardList(props: {
  items: BoardDevice[];
  skewMs: number;
  onStop?: (d: BoardDevice) => void;
  onElapsed: () => void;
}) {
  return (
    <ul className="space-y-2">
      {props.items.map((d) => (
        <li key={d.id} className="rounded-box bg-base-100 p-3" data-testid={`board-device-${d.id}`}>
          <div className="flex items-center justify-between">
            <div>
              <p className="font-semibold">{d.name}</p>
              <p className="text-xs text-base-content/50">
                {d.venue_name} · {d.serial}
              </p>
            </div>
            <span className={`badge ${STATUS[d.status].badge}`}>{STATUS[d.status].label}</span>
          </div>
          {d.session && (
            <div className="mt-2 flex items-center justify-between border-t border-base-200 pt-2">
              <div className="text-sm">
                {d.session.status === 'starting' || !d.session.ends_at ? (
                  <span>等待设备响应…</span>
                ) : (
                  <span>
                    剩余{' '}
                    <span className="font-mono text-lg font-semibold" data-testid={`left-${d.id}`}>
                      <Countdown
                        endsAt={d.session.ends_at}
                        skewMs={props.skewMs}
                        onElapsed={props.onElapsed}
                      />
                    </span>
                  </span>
                )}
                <p className="text-xs text-base-content/50">
                  {d.session.minutes} 分钟 · {METHOD[d.session.method] ?? d.session.method}{' '}
                  {d.session.amount_fen > 0 && <Money fen={d.session.amount_fen} />}
                </p>
              </div>
              {props.onStop && d.session.status === 'running' && (
                <button
                  type="button"
                  className="btn btn-outline btn-error btn-sm"
                  onClick={() => props.onStop!(d)}
                >
                  结束
                </button>
              )}
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
