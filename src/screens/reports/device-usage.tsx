import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 按设备统计的使用次数、时长与收入。 */
export default function DeviceUsageReportScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="按设备统计的使用次数、时长与收入。" />;
}
