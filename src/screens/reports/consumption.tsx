import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 按日统计的消费订单、金额与退款。 */
export default function ConsumptionReportScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="按日统计的消费订单、金额与退款。" />;
}
