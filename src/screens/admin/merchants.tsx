import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 平台入驻商户及其费率、状态与负责人账号。 */
export default function MerchantsScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="平台入驻商户及其费率、状态与负责人账号。" />;
}
