import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useSession } from '../../app/root-actors.context';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import { PARTNER_LEVEL, ROLE_LABELS, type Role } from '../../domain/levels';
import { GROUP_LABELS, ROUTES, type RouteDef } from '../../domain/routes';
import { staffApi } from '../../http/staff-api';
import { EmptyState, ErrorState, Loading, Money, PageHeader } from '../../ui';

type Group = NonNullable<RouteDef['group']>;
const useSummary = (level: number) => useRequest(loadSummary, level);
const GROUP_ORDER: Group[] = ['main', 'admin', 'subUsers', 'merchant', 'reports', 'daily', 'employee'];
/** Tile colours per group (literal class names so Tailwind keeps them; no alpha mixes, they cost CSS bytes). */
const GROUP_TONE: Record<Group, string> = {
  main: 'text-warning',
  admin: 'text-neutral',
  subUsers: 'text-secondary',
  merchant: 'text-primary',
  reports: 'text-info',
  daily: 'text-accent',
  employee: 'text-success',
};

/** The tiles a set of features opens, grouped in the order of GROUP_LABELS. */
export function tileGroups(
  features: readonly string[],
): { group: Group; label: string; routes: RouteDef[] }[] {
  return GROUP_ORDER.map((group) => ({
    group,
    label: GROUP_LABELS[group],
    routes: ROUTES.filter((r) => r.group === group && r.icon && r.feature && features.includes(r.feature)),
  })).filter((g) => g.routes.length > 0);
}

/** The summary, none for a partner (its money is its share wallet, not the merchant's figures). */
const loadSummary = (level: number) =>
  level === PARTNER_LEVEL ? Promise.resolve(null) : staffApi.dashboard();

function Summary({ summary }: { summary: ReturnType<typeof useSummary> }) {
  if (summary.loading) return <Loading label="正在加载概览…" />;
  if (summary.error) return <ErrorState message={summary.error.message} onRetry={summary.retry} />;
  const s = summary.data;
  if (!s) return null;
  const stats: [string, ReactNode][] = [
    ['场地', s.venues],
    ['设备', s.devices],
    ['在线设备', s.devices_online],
    ['今日订单', s.today.orders],
  ];
  return (
    <section className="mx-4 mt-4 rounded-box bg-primary p-4 text-primary-content" aria-label="经营概览">
      <p className="text-xs opacity-80">今日（{s.today.date}）</p>
      {/* Two different sums of money: a recharge later spent on a device would otherwise count twice. */}
      <div className="mt-1 grid grid-cols-2 gap-2">
        <div>
          <p className="text-xs opacity-80">营业收入</p>
          <p className="text-2xl font-bold" data-testid="today-amount">
            <Money fen={s.today.revenue_fen} />
          </p>
        </div>
        <div>
          <p className="text-xs opacity-80">充值入账（{s.today.recharges} 笔）</p>
          <p className="text-2xl font-bold" data-testid="today-recharge">
            <Money fen={s.today.recharge_fen} />
          </p>
        </div>
      </div>
      <dl className="mt-4 grid grid-cols-4 gap-2 text-center">
        {stats.map(([label, value]) => (
          <div key={label}>
            <dd className="text-lg font-semibold tabular-nums">{value}</dd>
            <dt className="text-xs opacity-80">{label}</dt>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Staff home: the level's summary and a tile per feature it may open. */
export default function DashboardScreen({ route }: ScreenProps) {
  const { name, role, level } = useSession();
  const me = useRequest(loadMe);
  const summary = useSummary(level);
  /** Feedback waiting for a reply, on the inbox's tile. */
  const badge = (r: RouteDef) =>
    r.id === 'merchant-feedback' && summary.data?.feedback_open ? summary.data.feedback_open : 0;
  const roleLabel = ROLE_LABELS[role as Role] ?? '';
  return (
    <>
      <PageHeader title={route.title} />
      <main data-screen="dashboard">
        <div className="px-4 pt-4">
          <p className="text-lg font-semibold">您好，{name || '用户'}</p>
          {roleLabel && <p className="text-sm text-base-content/60">{roleLabel}</p>}
        </div>
        {level !== PARTNER_LEVEL && <Summary summary={summary} />}
        {me.loading && <Loading />}
        {me.error && <ErrorState message={me.error.message} onRetry={me.canRetry ? me.retry : undefined} />}
        {me.data &&
          (tileGroups(me.data.features).length === 0 ? (
            <EmptyState title="暂无可用功能" description="当前账号尚未开通任何功能，请联系平台管理员。" />
          ) : (
            tileGroups(me.data.features).map((g) => (
              <section key={g.group} className="mx-4 mt-4 rounded-box bg-base-100 p-3" aria-label={g.label}>
                <h2 className="mb-2 px-1 text-sm font-semibold text-base-content/70">{g.label}</h2>
                <ul className="grid grid-cols-4 gap-y-3">
                  {g.routes.map((r) => (
                    <li key={r.id}>
                      <Link
                        href={r.path}
                        className="flex flex-col items-center gap-1 rounded-lg py-1 active:bg-base-200"
                      >
                        <span
                          className={`flex size-11 items-center justify-center rounded-xl bg-base-200 text-lg font-semibold ${GROUP_TONE[g.group]}`}
                          aria-hidden="true"
                        >
                          {r.title.slice(0, 1)}
                        </span>
                        <span className="text-xs">
                          {r.title}
                          {badge(r) > 0 && (
                            <span
                              className="text-error"
                              data-testid="tile-count"
                              aria-label={`${badge(r)} 条待回复`}
                            >
                              {' '}
                              {badge(r)}
                            </span>
                          )}
                        </span>
                      </Link>
                    </li>
                  ))}
                </ul>
              </section>
            ))
          ))}
      </main>
    </>
  );
}
