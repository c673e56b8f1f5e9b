import type { ScreenProps } from '../../app/screen-registry';
import { ReportScreen } from './parts/report-screen';

/** 按支付方式统计会员充值的实付、赠送与退款。 */
export default function RechargeReportScreen({ route }: ScreenProps) {
  return (
    <ReportScreen
      route={route}
      kind="recharge"
      daily={false}
      description="按支付方式统计会员充值的实付、赠送与退款。"
    />
  );
}
