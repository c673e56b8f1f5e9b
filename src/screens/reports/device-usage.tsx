import type { ScreenProps } from '../../app/screen-registry';
import { ReportScreen } from './parts/report-screen';

/** 按设备统计使用次数、使用时长、收入与利用率。 */
export default function DeviceUsageReportScreen({ route }: ScreenProps) {
  return (
    <ReportScreen
      route={route}
      kind="device-usage"
      daily={false}
      description="按设备统计使用次数、使用时长、收入与利用率。"
    />
  );
}
