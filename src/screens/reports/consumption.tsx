import type { ScreenProps } from '../../app/screen-registry';
import { ReportScreen } from './parts/report-screen';

/** 按场地与支付方式统计消费金额，退款单列。 */
export default function ConsumptionReportScreen({ route }: ScreenProps) {
  return (
    <ReportScreen
      route={route}
      kind="consumption"
      daily={false}
      description="按场地与支付方式统计消费金额，退款单列。"
    />
  );
}
