import { formatFen } from '../domain/money';
import { WITHDRAWAL_STATUSES, type Withdrawal } from '../domain/wallet.schema';

const STATUS_BADGE: Record<Withdrawal['status'], string> = {
  requested: 'badge-warning',
  approved: 'badge-info',
  paid: 'badge-success',
  rejected: 'badge-error',
};

const NOTE_LABEL: Partial<Record<Withdrawal['status'], string>> = { rejected: '原因', paid: '转账凭证' };

/** Local `YYYY-MM-DD HH:mm`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function WithdrawalStatusBadge({ status }: { status: Withdrawal['status'] }) {
  return <span className={`badge badge-sm ${STATUS_BADGE[status]}`}>{WITHDRAWAL_STATUSES[status]}</span>;
}

/** A withdrawal's state changes, oldest first: what, who, when, and the reason or transfer reference. */
export function WithdrawalTimeline({ withdrawal }: { withdrawal: Withdrawal }) {
  return (
    <ol className="flex flex-col gap-3 border-l-2 border-base-300 pl-4" aria-label="处理记录">
      {withdrawal.events.map((e, i) => (
        <li key={i} className="relative" data-testid="timeline-event">
          <span className="absolute -left-[1.4rem] top-1 size-3 rounded-full bg-primary" aria-hidden="true" />
          <p className="text-sm font-medium">
            {e.status === 'requested'
              ? `申请提现 ${formatFen(withdrawal.amount_fen)}`
              : WITHDRAWAL_STATUSES[e.status]}
          </p>
          <p className="text-xs text-base-content/60">
            {localTime(e.created_at)} · {e.actor?.name ?? '系统'}
          </p>
          {e.note && (
            <p className="text-xs text-base-content/80">
              {NOTE_LABEL[e.status] ?? '备注'}：{e.note}
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}
