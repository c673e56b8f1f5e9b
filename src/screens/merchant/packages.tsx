import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 会员充值套餐：支付金额与赠送金额。 */
export default function PackagesScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="会员充值套餐：支付金额与赠送金额。" />;
}
