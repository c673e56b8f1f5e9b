import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 填写商户名称、联系人、平台费率与登录账号。 */
export default function MerchantEditScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="填写商户名称、联系人、平台费率与登录账号。" />;
}
