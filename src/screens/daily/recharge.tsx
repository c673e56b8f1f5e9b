import type { ScreenProps } from '../../app/screen-registry';
import { ReportScreen } from '../reports/parts/report-screen';

/** 充值日报: one day's recharges by method (WeChat, cash); an employee sees the cash recharges they took. */
export default function DailyRechargeScreen({ route }: ScreenProps) {
  return (
    <ReportScreen
      route={route}
      kind="recharge"
      daily
      description="当日的会员充值：微信与现金，实付与赠送分开。"
    />
  );
}
