import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 您名下的场地：名称、地址与各项服务价格。 */
export default function VenuesScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="您名下的场地：名称、地址与各项服务价格。" />;
}
