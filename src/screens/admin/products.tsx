import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 平台统一维护的设备型号（如充电桩、按摩椅），供商户添加设备时选择。 */
export default function ProductsScreen({ route }: ScreenProps) {
  return (
    <StaffPage
      route={route}
      description="平台统一维护的设备型号（如充电桩、按摩椅），供商户添加设备时选择。"
    />
  );
}
