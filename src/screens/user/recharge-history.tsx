import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import type { RechargeHistoryItem } from '../../domain/api';
import { WECHAT_AUTH_REQUIRED, wechatLoginPath } from '../../http/client';
import { userApi } from '../../http/user-api';
import { Money, PageHeader } from '../../ui';
import { ORDER_STATUS_LABELS, shortTime } from '../../ui/user/format';
import { PagedList } from '../../ui/user/paged-list';
import { SignInPrompt } from '../../ui/user/sign-in-prompt';
import { usePaged } from '../../app/user/use-paged';

/** `/user/recharge-history`: the member's recharges, newest first (amount paid, bonus, method). */
export default function RechargeHistoryScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const list = usePaged((page) => userApi.rechargeHistory(page));
  return (
    <UserPage screen="user-recharge-history">
      <PageHeader title={route.title} onBack={() => navigate(route.back ?? '/user/profile')} />
      <main className="px-4 pt-4 pb-10">
        <PagedList<RechargeHistoryItem>
          {...list}
          onRetry={list.retry}
          onMore={list.loadMore}
          emptyTitle="暂无充值记录"

          signIn={
            list.error?.code === WECHAT_AUTH_REQUIRED ? (
              <SignInPrompt onSignIn={() => navigate(wechatLoginPath('/user/recharge-history'))} />
            ) : undefined
          }
          render={(o) => (
            <li key={o.order_no} className="list-row" data-testid="recharge-row">
              <div className="list-col-grow">
                <p className="font-medium">{o.merchant_name}</p>
                <p className="text-xs text-base-content/50">
                  {shortTime(o.created_at)} · {o.method === 'cash' ? '现金' : '微信支付'} ·{' '}
                  {ORDER_STATUS_LABELS[o.status] ?? o.status}
                </p>
              </div>
              <div className="text-right">
                <Money fen={o.amount_fen} className="font-semibold text-success" />
                {o.bonus_fen > 0 && (
                  <p className="text-xs text-success">
                    赠送 <Money fen={o.bonus_fen} />
                  </p>
                )}
              </div>
            </li>
          )}
        />
      </main>
    </UserPage>
  );
}
