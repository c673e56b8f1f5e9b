import { formatFen } from '../../../domain/money';
import type { WalletEntry, WalletView, Withdrawal } from '../../../domain/wallet.schema';
import { localTime, WithdrawalStatusBadge, WithdrawalTimeline } from '../../../ui/withdrawal-timeline';

const signed = (fen: number) => (fen > 0 ? `+${formatFen(fen)}` : formatFen(fen));

/** Available, frozen, total and paid out, with the request button. */
export function WalletSummary({ wallet, onWithdraw }: { wallet: WalletView; onWithdraw: () => void }) {
  const canWithdraw = wallet.withdrawable_fen >= 100;
  return (
    <section className="m-4 rounded-box bg-base-100 p-4" aria-label="余额">
      <p className="text-sm text-base-content/60">
        {wallet.kind === 'partner' ? '分润钱包 · 可提现' : '结算钱包 · 可提现'}
      </p>
      <p
        className={`text-3xl font-semibold tabular-nums ${wallet.available_fen < 0 ? 'text-error' : ''}`}
        data-testid="available"
      >
        {formatFen(wallet.available_fen)}
      </p>
      <dl className="mt-3 grid grid-cols-3 gap-2 text-center text-sm">
        <div>
          <dt className="text-base-content/60">冻结中</dt>
          <dd className="tabular-nums" data-testid="frozen">
            {formatFen(wallet.frozen_fen)}
          </dd>
        </div>
        <div>
          <dt className="text-base-content/60">合计</dt>
          <dd className="tabular-nums" data-testid="total">
            {formatFen(wallet.total_fen)}
          </dd>
        </div>
        <div>
          <dt className="text-base-content/60">已提现</dt>
          <dd className="tabular-nums">{formatFen(wallet.paid_out_fen)}</dd>
        </div>
      </dl>
      <button
        type="button"
        className="btn btn-primary mt-4 w-full"
        disabled={!canWithdraw}
        onClick={onWithdraw}
      >
        申请提现
      </button>
      {wallet.reserved_fen > 0 && (
        <p className="mt-2 text-center text-xs text-base-content/60" data-testid="reserved">
          其中 {formatFen(wallet.reserved_fen)} 来自使用中的设备，使用结束后可提现
        </p>
      )}
      {!canWithdraw && (
        <p className="mt-2 text-center text-xs text-base-content/60">
          {wallet.available_fen < 0 ? '结算余额为负（待抵扣），暂不能提现' : '可提现金额满 1 元即可申请提现'}
        </p>
      )}
    </section>
  );
}

/** One ledger movement of the wallet: what, when, which order or withdrawal, how much. */
export function EntryRow({ entry }: { entry: WalletEntry }) {
  const ref = entry.order_no
    ? `订单 ${entry.order_no}`
    : entry.withdrawal_id
      ? `提现 #${entry.withdrawal_id}`
      : '';
  return (
    <div className="flex items-center gap-3 p-3" data-testid="wallet-entry">
      <div className="min-w-0 flex-1">
        <p className="font-medium">{entry.label}</p>
        <p className="truncate text-xs text-base-content/60">
          {localTime(entry.created_at)}
          {ref && ` · ${ref}`}
        </p>
      </div>
      <div className="text-right">
        <p className={`tabular-nums ${entry.available_fen > 0 ? 'text-success' : ''}`}>
          {signed(entry.available_fen)}
        </p>
        {entry.frozen_fen !== 0 && (
          <p className="text-xs tabular-nums text-base-content/60">冻结 {signed(entry.frozen_fen)}</p>
        )}
      </div>
    </div>
  );
}

/** One of the account's own requests; tapping it shows its timeline. */
export function OwnWithdrawalRow({
  withdrawal,
  open,
  onToggle,
}: {
  withdrawal: Withdrawal;
  open: boolean;
  onToggle: () => void;
}) {
  return (
    <div className="p-3" data-testid="own-withdrawal">
      <button
        type="button"
        className="flex w-full items-center gap-3 text-left"
        aria-expanded={open}
        onClick={onToggle}
      >
        <div className="min-w-0 flex-1">
          <p className="font-medium tabular-nums">{formatFen(withdrawal.amount_fen)}</p>
          <p className="text-xs text-base-content/60">
            {localTime(withdrawal.created_at)} · 提现 #{withdrawal.id}
          </p>
        </div>
        <WithdrawalStatusBadge status={withdrawal.status} />
      </button>
      {open && (
        <div className="mt-3 pl-2">
          <WithdrawalTimeline withdrawal={withdrawal} />
        </div>
      )}
    </div>
  );
}
