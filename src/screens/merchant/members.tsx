import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 在您的场地消费过的会员及其钱包余额。 */
export default function MembersScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="在您的场地消费过的会员及其钱包余额。" />;
}
