import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 今日的充值订单与合计金额。 */
export default function DailyRechargeScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="今日的充值订单与合计金额。" />;
}
