import type { ScreenProps } from '../../app/screen-registry';
import { StaffPage } from '../shared/staff-page';

/** 您的分润收入与可提现余额，以及提现申请记录。 */
export default function WalletScreen({ route }: ScreenProps) {
  return <StaffPage route={route} description="您的分润收入与可提现余额，以及提现申请记录。" />;
}
