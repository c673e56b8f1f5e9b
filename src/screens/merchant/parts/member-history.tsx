import { useState, type ReactNode } from 'react';
import type { Page } from '../../../domain/api';
import {
  KIND_LABELS,
  type MemberHistory as HistoryKind,
  type MemberOrder,
  type MemberSession,
  type MemberWalletEntry,
  type MerchantMember,
} from '../../../domain/members.schema';
import { formatFen } from '../../../domain/money';
import { METHOD_LABELS } from '../../../domain/reports.schema';
import { membersApi } from '../../../http/people-api';
import {
  WECHAT_REFUND_LABELS,
  isRetryableRefund,
  refundLabel,
  refundTone,
  type WechatRefundView,
} from '../../../domain/refunds.schema';
import { AbnormalRefundSheet } from './abnormal-refund-sheet';
import { ConfirmDialog, Money, Toast } from '../../../ui';
import { ResourceList } from '../../../ui/resource-list';
import { ORDER_STATUS_LABELS, shortTime } from '../../../ui/user/format';
import { useResourceList } from '../../shared/use-resource-list';

const PAGE_SIZE = 10;

const TABS: Record<HistoryKind, string> = { entries: '钱包流水', orders: '订单', sessions: '使用记录' };
const SESSION_STATUS: Record<string, string> = {
  starting: '启动中',
  running: '使用中',
  ended: '已结束',
  stopped: '提前结束',
  failed: '启动失败',
};

/** One of the member's histories, paged on the server. */
function HistoryList<T>(props: {
  load: (page: number) => Promise<Page<T>>;
  keyOf: (item: T) => string | number;
  render: (item: T) => ReactNode;
  empty: string;
}) {
  const { listProps } = useResourceList(props.load, { page: 1 }, PAGE_SIZE, (f) => f.page);
  return (
    <ResourceList {...listProps} keyOf={props.keyOf} emptyTitle={props.empty} renderItem={props.render} />
  );
}

function Row({ title, sub, fen }: { title: ReactNode; sub: ReactNode; fen?: number }) {
  return (
    <div className="flex items-center gap-3 px-3 py-2 text-sm" data-testid="member-history-row">
      <div className="min-w-0 flex-1">
        <p className="truncate">{title}</p>
        <p className="truncate text-xs text-base-content/60">{sub}</p>
      </div>
      {fen !== undefined && <Money fen={fen} />}
    </div>
  );
}

/** The parts of a row's second line that are there, joined. */
const line = (...parts: (string | null | undefined | false)[]) => parts.filter(Boolean).join(' · ');

const entryRow = (e: MemberWalletEntry) => (
  <Row
    title={`${KIND_LABELS[e.kind] ?? e.kind}${e.bucket === 'bonus' && e.kind !== 'bonus_credit' ? '（赠送余额）' : ''}`}
    sub={line(shortTime(e.created_at), e.order_no ?? e.memo)}
    fen={e.amount_fen}
  />
);
const orderRow = (
  o: MemberOrder,
  onRetry: (o: MemberOrder) => void,
  onAbnormal: (o: MemberOrder) => void,
) => (
  <div>
    <Row
      title={`${o.kind === 'recharge' ? '充值' : (o.device_name ?? '消费')} · ${METHOD_LABELS[o.method]} · ${
        o.wechat_refund && o.wechat_refund.status !== 'succeeded'
          ? WECHAT_REFUND_LABELS[o.wechat_refund.status]
          : (ORDER_STATUS_LABELS[o.status] ?? o.status)
      }`}
      sub={line(
        shortTime(o.created_at),
        o.order_no,
        o.refunded_fen > 0 && !o.wechat_refund && `已退 ${formatFen(o.refunded_fen)}`,
      )}
      fen={o.amount_fen}
    />
    {o.wechat_refund && (
      <RefundLine refund={o.wechat_refund} onRetry={() => onRetry(o)} onAbnormal={() => onAbnormal(o)} />
    )}
  </div>
);

/**
 * A WeChat refund's state under its order, with WeChat's word when it needs staff: a closed or refused one can be
 * sent again, a mismatched one asked about again, an abnormal one redirected (to a card or the merchant).
 */
function RefundLine(props: { refund: WechatRefundView; onRetry: () => void; onAbnormal: () => void }) {
  const { refund } = props;
  const redirected = refund.abnormal_type != null;
  return (
    <div className="flex items-center gap-2 px-3 pb-2 text-xs" data-testid="member-order-refund">
      <p className={`min-w-0 flex-1 ${refundTone(refund.status)}`}>
        {redirected ? '异常退款' : '退回微信'} {formatFen(refund.amount_fen)} · {refundLabel(refund)}
        {refund.status !== 'closed' && refundTone(refund.status) === 'text-error' && refund.last_error
          ? `（${refund.last_error}）`
          : ''}
      </p>
      {isRetryableRefund(refund.status) && (
        <button type="button" className="btn btn-xs btn-outline" onClick={props.onRetry}>
          {refund.status === 'mismatch' ? '重新核对' : '重新退款'}
        </button>
      )}
      {refund.status === 'abnormal' && (
        <button type="button" className="btn btn-xs btn-outline btn-error" onClick={props.onAbnormal}>
          处理异常退款
        </button>
      )}
    </div>
  );
}

/** The orders tab: the list, and the confirmed retry of a refund that did not succeed. */
function OrderHistory({ load }: { load: (page: number) => Promise<Page<MemberOrder>> }) {
  const [version, setVersion] = useState(0);
  const [target, setTarget] = useState<MemberOrder | null>(null);
  const [abnormal, setAbnormal] = useState<MemberOrder | null>(null);
  const [busy, setBusy] = useState(false);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const confirm = async () => {
    const refund = target?.wechat_refund;
    if (!refund) return;
    setBusy(true);
    try {
      await membersApi.retryRefund(refund.id);
      setToast({ message: '已重新提交退款', kind: 'success' });
      setVersion((v) => v + 1);
    } catch (e) {
      setToast({ message: (e as { message?: string }).message ?? '重试失败，请稍后再试', kind: 'error' });
    } finally {
      setBusy(false);
      setTarget(null);
    }
  };
  return (
    <>
      <HistoryList
        key={version}
        load={load}
        keyOf={(o) => o.order_no}
        render={(o) => orderRow(o, setTarget, setAbnormal)}
        empty="暂无订单"
      />
      <ConfirmDialog
        open={target !== null}
        title="重新退款"
        message={
          target?.wechat_refund?.status === 'mismatch'
            ? `再次向微信查询订单 ${target.order_no} 的退款 ${formatFen(target.wechat_refund.amount_fen)}，信息一致后入账。`
            : target?.wechat_refund
              ? `将订单 ${target.order_no} 的 ${formatFen(target.wechat_refund.amount_fen)} 再次原路退回会员的微信。`
              : undefined
        }
        confirmLabel={target?.wechat_refund?.status === 'mismatch' ? '重新核对' : '重新退款'}
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setTarget(null)}
      />
      <AbnormalRefundSheet
        refund={abnormal?.wechat_refund ?? null}
        orderNo={abnormal?.order_no ?? ''}
        onClose={() => setAbnormal(null)}
        onDone={(message, ok) => {
          setToast({ message, kind: ok ? 'success' : 'error' });
          if (ok) setVersion((v) => v + 1);
        }}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </>
  );
}
const sessionRow = (s: MemberSession) => (
  <Row
    title={`${s.device_name} · ${s.minutes} 分钟 · ${SESSION_STATUS[s.status] ?? s.status}`}
    sub={line(s.started_at ? shortTime(s.started_at) : '未开始', s.order_no)}
  />
);

/** A member's wallet entries, orders and sessions at one merchant, in tabs, each list paged. */
export function MemberHistory({ member }: { member: MerchantMember }) {
  const [tab, setTab] = useState<HistoryKind>('entries');
  const q = (page: number) => ({ page, page_size: PAGE_SIZE, merchant_id: member.merchant_id });
  return (
    <div className="-mx-4">
      <div role="tablist" className="tabs tabs-border mx-4">
        {(Object.keys(TABS) as HistoryKind[]).map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={tab === k}
            className={`tab ${tab === k ? 'tab-active' : ''}`}
            onClick={() => setTab(k)}
          >
            {TABS[k]}
          </button>
        ))}
      </div>
      {tab === 'entries' && (
        <HistoryList
          load={(page) => membersApi.entries(member.id, q(page))}
          keyOf={(e) => e.id}
          render={entryRow}
          empty="暂无钱包流水"
        />
      )}
      {tab === 'orders' && <OrderHistory load={(page) => membersApi.orders(member.id, q(page))} />}
      {tab === 'sessions' && (
        <HistoryList
          load={(page) => membersApi.sessions(member.id, q(page))}
          keyOf={(s) => s.id}
          render={sessionRow}
          empty="暂无使用记录"
        />
      )}
    </div>
  );
}
