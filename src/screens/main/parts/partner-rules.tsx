import { useRequest } from '../../../app/use-request';
import { formatBp } from '../../../domain/profit-sharing.schema';
import { profitSharingApi } from '../../../http/people-api';
import { ErrorState, Loading } from '../../../ui';
import { localTime } from '../../../ui/withdrawal-timeline';

/**
 * The signed-in partner's own profit-sharing rules on `/wallet`: which venue, what share of its online income, and
 * since when that ratio applies (a change counts for payments from then on).
 */
export function PartnerRules() {
  const rules = useRequest(profitSharingApi.mine);
  const items = rules.data?.items;
  return (
    <section className="mx-4 mb-2" aria-label="我的分润规则">
      <h2 className="mt-2 mb-2 text-sm font-medium text-base-content/70">我的分润规则</h2>
      <div className="rounded-box bg-base-100">
        {rules.error ? (
          <ErrorState
            title="分润规则加载失败"
            message={rules.error.message}
            onRetry={rules.canRetry ? rules.retry : undefined}
          />
        ) : !items ? (
          <Loading />
        ) : items.length === 0 ? (
          <p className="p-4 text-sm text-base-content/60">
            暂无分润规则。商户为您设置场地分润后，会员在该场地的线上消费会按比例分到这里。
          </p>
        ) : (
          <ul className="divide-y divide-base-200">
            {items.map((r) => (
              <li key={r.id} className="flex items-center gap-3 p-3" data-testid="my-share-rule">
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{r.venue_name}</p>
                  <p className="text-xs text-base-content/60">自 {localTime(r.valid_from)} 起生效</p>
                </div>
                <p className="text-lg font-semibold tabular-nums">{formatBp(r.ratio_bp)}</p>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
