import type { ScreenProps } from '../../app/screen-registry';
import { ReportScreen } from './parts/report-screen';

/**
 * 现金报表 (`/reports/cash`) and 现金日报 (`/daily/cash`, the same screen, one day at a time): cash recharges and
 * cash sales by day and employee. An employee sees the cash they took.
 */
export default function CashReportScreen({ route }: ScreenProps) {
  const daily = route.group === 'daily';
  return (
    <ReportScreen
      route={route}
      kind="cash"
      daily={daily}
      description={
        daily
          ? '当日收取的现金：现金充值与现金消费，按经办人汇总。'
          : '员工收取的现金：现金充值与现金消费，按日与经办人汇总。'
      }
    />
  );
}
