import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import type { ConsumptionHistoryItem } from '../../domain/api';
import { WECHAT_AUTH_REQUIRED, wechatLoginPath } from '../../http/client';
import { userApi } from '../../http/user-api';
import { WECHAT_REFUND_LABELS, refundLabel, refundTone } from '../../domain/refunds.schema';
import { Money, PageHeader } from '../../ui';
import { ORDER_STATUS_LABELS, shortTime } from '../../ui/user/format';
import { PagedList } from '../../ui/user/paged-list';
import { SignInPrompt } from '../../ui/user/sign-in-prompt';
import { usePaged } from '../../app/user/use-paged';

/** `/user/consumption-history`: device runs, newest first, with what was refunded. */
export default function ConsumptionHistoryScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const list = usePaged((page) => userApi.consumptionHistory(page));
  return (
    <UserPage screen="user-consumption-history">
      <PageHeader title={route.title} onBack={() => navigate(route.back ?? '/user/profile')} />
      <main className="px-4 pt-4 pb-10">
        <PagedList<ConsumptionHistoryItem>
          {...list}
          onRetry={list.retry}
          onMore={list.loadMore}
          emptyTitle="暂无消费记录"

          signIn={
            list.error?.code === WECHAT_AUTH_REQUIRED ? (
              <SignInPrompt onSignIn={() => navigate(wechatLoginPath('/user/consumption-history'))} />
            ) : undefined
          }
          render={(o) => (
            <li key={o.order_no} className="list-row" data-testid="consumption-row">
              <div className="list-col-grow">
                <p className="font-medium">{o.device_name || '设备'}</p>
                <p className="text-xs text-base-content/50">
                  {o.venue_name} · {o.minutes} 分钟 · {o.method === 'wallet' ? '余额支付' : '微信支付'}
                </p>
                <p className="text-xs text-base-content/50">
                  {shortTime(o.created_at)} ·{' '}
                  {o.wechat_refund && o.wechat_refund.status !== 'succeeded'
                    ? WECHAT_REFUND_LABELS[o.wechat_refund.status]
                    : (o.wechat_refund?.amount_fen ?? o.refunded_fen) > 0 &&
                        (o.wechat_refund?.amount_fen ?? o.refunded_fen) < o.amount_fen
                      ? '部分退款'
                      : (ORDER_STATUS_LABELS[o.status] ?? o.status)}
                </p>
              </div>
              <div className="text-right">
                <Money fen={-o.amount_fen} className="font-semibold" />
                {o.wechat_refund ? (
                  <p className={`text-xs ${refundTone(o.wechat_refund.status)}`} data-testid="refund">
                    {o.wechat_refund.abnormal_type ? '退款' : '退回微信'}{' '}
                    <Money fen={o.wechat_refund.amount_fen} /> · {refundLabel(o.wechat_refund)}
                  </p>
                ) : (
                  o.refunded_fen > 0 && (
                    <p className="text-xs text-success" data-testid="refund">
                      退款 <Money fen={o.refunded_fen} />
                    </p>
                  )
                )}
              </div>
            </li>
          )}
        />
      </main>
    </UserPage>
  );
}
