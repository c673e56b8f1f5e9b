import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 按日统计的会员充值金额与笔数（微信与现金）。 */
export default function RechargeReportScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="按日统计的会员充值金额与笔数（微信与现金）。" />;
}
