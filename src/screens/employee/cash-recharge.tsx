import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 为到店会员收取现金并充入其钱包，计入现金报表。 */
export default function CashRechargeScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="为到店会员收取现金并充入其钱包，计入现金报表。" />;
}
