import { formatFen } from '../../../domain/money';
import { ROLE_LABELS, type Role } from '../../../domain/levels';
import { WITHDRAWAL_STATUSES, type Withdrawal, type WithdrawalStatus } from '../../../domain/wallet.schema';
import { localTime, WithdrawalStatusBadge, WithdrawalTimeline } from '../../../ui/withdrawal-timeline';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';

export type AdminAction = 'approve' | 'reject' | 'pay';

/** A row of the list: who, which merchant, how much, when, status. */
export function WithdrawalRow({ w, onOpen }: { w: Withdrawal; onOpen: () => void }) {
  return (
    <button
      type="button"
      className="flex w-full items-center gap-3 p-3 text-left"
      onClick={onOpen}
      data-testid="withdrawal-row"
    >
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">
          {w.account.name}
          <span className="ml-2 text-xs text-base-content/50">
            {ROLE_LABELS[w.account.role as Role] ?? w.account.role}
          </span>
        </p>
        <p className="truncate text-xs text-base-content/60">
          {localTime(w.created_at)}
          {w.merchant && ` · ${w.merchant.name}`} · #{w.id}
        </p>
      </div>
      <div className="flex flex-col items-end gap-1">
        <span className="font-medium tabular-nums">{formatFen(w.amount_fen)}</span>
        <WithdrawalStatusBadge status={w.status} />
      </div>
    </button>
  );
}

/** The request in full: amount, who, its timeline, and the admin's actions the lifecycle allows now. */
export function WithdrawalDetail({
  w,
  isAdmin,
  onAction,
}: {
  w: Withdrawal;
  isAdmin: boolean;
  onAction: (action: AdminAction) => void;
}) {
  return (
    <div className="flex flex-col gap-4" data-testid="withdrawal-detail">
      <div className="flex items-center justify-between">
        <div>
          <p className="text-2xl font-semibold tabular-nums">{formatFen(w.amount_fen)}</p>
          <p className="text-sm text-base-content/60">
            {w.account.name}（{w.account.username}）{w.merchant && ` · ${w.merchant.name}`}
          </p>
        </div>
        <WithdrawalStatusBadge status={w.status} />
      </div>
      <WithdrawalTimeline withdrawal={w} />
      {isAdmin && w.status === 'requested' && (
        <div className="flex gap-2">
          <button
            type="button"
            className="btn btn-error btn-outline flex-1"
            onClick={() => onAction('reject')}
          >
            驳回
          </button>
          <button type="button" className="btn btn-primary flex-1" onClick={() => onAction('approve')}>
            批准
          </button>
        </div>
      )}
      {isAdmin && w.status === 'approved' && (
        <button type="button" className="btn btn-primary" onClick={() => onAction('pay')}>
          标记已打款
        </button>
      )}
      {!isAdmin && (w.status === 'requested' || w.status === 'approved') && (
        <p className="text-xs text-base-content/60">由平台管理员审核并打款。</p>
      )}
    </div>
  );
}

/** The list's filters: status, and the admin's merchant. */
export function WithdrawalsToolbar({
  filter,
  isAdmin,
  onFilter,
}: {
  filter: { status: WithdrawalStatus | ''; merchant_id: number | undefined };
  isAdmin: boolean;
  onFilter: (f: { status: WithdrawalStatus | ''; merchant_id: number | undefined }) => void;
}) {
  return (
    <div className="flex flex-col gap-2">
      <select
        className="select w-full"
        aria-label="状态"
        value={filter.status}
        onChange={(e) => onFilter({ ...filter, status: e.target.value as WithdrawalStatus | '' })}
      >
        <option value="">全部状态</option>
        {Object.entries(WITHDRAWAL_STATUSES).map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      {isAdmin && (
        <AdminMerchantFilter
          value={filter.merchant_id}
          onChange={(merchant_id) => onFilter({ ...filter, merchant_id })}
        />
      )}
    </div>
  );
}
