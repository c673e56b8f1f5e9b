import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 按账号级别设置可使用的功能；平台管理员始终拥有全部功能。 */
export default function PermissionsScreen({ route }: ScreenProps) {
  return (
    <StaffPage
      route={route}
      description="按账号级别设置可使用的功能；平台管理员始终拥有全部功能。"
      emptyTitle="暂无数据"
    />
  );
}
