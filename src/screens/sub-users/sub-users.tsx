import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 为合伙人和员工开设子账号，并设置其所属场地。 */
export default function SubUsersScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="为合伙人和员工开设子账号，并设置其所属场地。" />;
}
