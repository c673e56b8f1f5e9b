import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 按场地设置合伙人的分润比例，线上收入在支付时自动分账。 */
export default function ProfitSharingScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="按场地设置合伙人的分润比例，线上收入在支付时自动分账。" />;
}
