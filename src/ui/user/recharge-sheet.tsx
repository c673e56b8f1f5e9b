import type { RechargePackage } from '../../domain/api';
import { formatFen } from '../../domain/money';

export interface RechargeSheetProps {
  open: boolean;
  merchantName: string;
  packages: RechargePackage[];
  /** Shown instead of the list while the order is created or the payment confirmed. */
  progress: string | null;
  error: string | null;
  loading: boolean;
  onSelect: (packageId: number) => void;
  onRetry?: (() => void) | undefined;
  onClose: () => void;
}

/** A bottom sheet with a merchant's recharge packages: pay X, get Y bonus. */
export function RechargeSheet(p: RechargeSheetProps) {
  if (!p.open) return null;
  return (
    <div className="modal modal-open modal-bottom" role="dialog" aria-labelledby="recharge-title">
      <div className="modal-box">
        <h3 id="recharge-title" className="text-lg font-bold">
          充值 · {p.merchantName}
        </h3>
        {p.loading && <span className="loading loading-spinner mt-4 block" aria-label="加载中" />}
        {p.progress && (
          <p className="mt-4 flex items-center gap-2" role="status">
            <span className="loading loading-spinner loading-sm text-primary" aria-hidden="true" />
            {p.progress}
          </p>
        )}
        {p.error && (
          <div className="alert alert-error mt-4 text-sm" role="alert">
            <span>{p.error}</span>
            {p.onRetry && (
              <button type="button" className="btn btn-sm" onClick={p.onRetry}>
                重试
              </button>
            )}
          </div>
        )}
        {!p.loading && !p.progress && !p.error && p.packages.length === 0 && (
          <p className="mt-4 text-sm text-base-content/60">该商户暂未设置充值套餐</p>
        )}
        {!p.progress && p.packages.length > 0 && (
          <div className="mt-4 grid grid-cols-2 gap-3">
            {p.packages.map((pkg) => (
              <button
                key={pkg.id}
                type="button"
                className="rounded-box border-2 border-base-300 p-3 text-left active:border-primary"
                data-testid={`package-${pkg.id}`}
                onClick={() => p.onSelect(pkg.id)}
              >
                <span className="block text-lg font-semibold tabular-nums">充 {formatFen(pkg.pay_fen)}</span>
                <span className="block text-sm text-success">
                  {pkg.bonus_fen > 0 ? `送 ${formatFen(pkg.bonus_fen)}` : pkg.name}
                </span>
              </button>
            ))}
          </div>
        )}
        <div className="modal-action">
          <button type="button" className="btn btn-ghost" onClick={p.onClose}>
            关闭
          </button>
        </div>
      </div>
    </div>
  );
}
