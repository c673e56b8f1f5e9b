import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 正在运行的设备及其剩余时间。 */
export default function DeviceChargingScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="正在运行的设备及其剩余时间。" />;
}
