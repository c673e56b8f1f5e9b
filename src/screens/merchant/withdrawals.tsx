import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 结算余额的提现申请与审核进度。 */
export default function WithdrawalsScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="结算余额的提现申请与审核进度。" />;
}
