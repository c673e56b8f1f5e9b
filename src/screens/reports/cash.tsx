import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 员工收取的现金充值，按日与经办人汇总。 */
export default function CashReportScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="员工收取的现金充值，按日与经办人汇总。" />;
}
