import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 为现场顾客远程启动设备并选择服务时长。 */
export default function RemoteStartScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="为现场顾客远程启动设备并选择服务时长。" />;
}
