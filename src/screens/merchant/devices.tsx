import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 场地中的设备、在线状态与最近心跳。 */
export default function DevicesScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="场地中的设备、在线状态与最近心跳。" />;
}
