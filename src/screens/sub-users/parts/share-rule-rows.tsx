import { useEffect, useRef, useState } from 'react';
import { useRequest } from '../../../app/use-request';
import {
  SHARE_ACTIONS,
  formatBp,
  type ShareRule,
  type ShareRuleChange,
} from '../../../domain/profit-sharing.schema';
import { toOutcome } from '../../../http/outcome';
import { profitSharingApi } from '../../../http/people-api';
import { ConfirmDialog } from '../../../ui';
import { ResourceList } from '../../../ui/resource-list';
import { shortTime } from '../../../ui/user/format';

const PAGE_SIZE = 20;

/** One rule: partner and ratio (a disabled partner's marked), the venue's total, since when; edit and delete. */
export function ShareRuleRow({
  rule: r,
  showMerchant,
  onEdit,
  onRemove,
}: {
  rule: ShareRule;
  showMerchant: boolean;
  onEdit: () => void;
  onRemove: () => void;
}) {
  return (
    <div className="flex items-center gap-3 p-3" data-testid="share-rule-row">
      <button type="button" className="min-w-0 flex-1 text-left" onClick={onEdit}>
        <p className="truncate font-medium">
          {r.partner_name} · {formatBp(r.ratio_bp)}
          {r.partner_status === 'disabled' && (
            <span className="ml-2 text-xs text-warning">账号已停用，暂不分润</span>
          )}
        </p>
        <p className="text-xs text-base-content/60">
          {r.venue_name}（合计 {formatBp(r.venue_total_bp)}）· {shortTime(r.valid_from)} 起
          {showMerchant && ` · ${r.merchant_name}`}
        </p>
      </button>
      <button type="button" className="btn btn-ghost btn-sm text-error" onClick={onRemove}>
        删除
      </button>
    </div>
  );
}

/** One change in the rules' history: what, where, for whom, from and to, when and by whom. */
export function ShareChangeRow({ change: h }: { change: ShareRuleChange }) {
  return (
    <div className="p-3 text-sm" data-testid="share-change-row">
      <p>
        {SHARE_ACTIONS[h.action]} · {h.venue_name} · {h.partner_name}：
        {h.previous_bp !== null ? `${formatBp(h.previous_bp)} → ` : ''}
        {h.ratio_bp !== null ? formatBp(h.ratio_bp) : '已删除'}
      </p>
      <p className="text-xs text-base-content/60">
        {shortTime(h.created_at)} · {h.by ?? '系统'}
      </p>
    </div>
  );
}

/** The rules' history, paged; `version` changes after every save or removal and reloads it. */
export function ShareHistory({ merchantId, version }: { merchantId: number | undefined; version: number }) {
  const [page, setPage] = useState(1);
  const history = useRequest(profitSharingApi.history, {
    page,
    page_size: PAGE_SIZE,
    merchant_id: merchantId,
  });
  const { refresh } = history;
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    refresh();
  }, [version, refresh]);
  useEffect(() => setPage(1), [merchantId]);
  return (
    <>
      <h2 className="px-4 text-sm font-semibold text-base-content/70">变更记录</h2>
      <ResourceList
        items={history.data?.items}
        total={history.data?.total ?? 0}
        page={page}
        pageSize={PAGE_SIZE}
        loading={history.loading}
        error={history.error}
        onRetry={history.canRetry ? history.retry : undefined}
        onPage={setPage}
        keyOf={(h) => h.id}
        emptyTitle="暂无变更记录"
        renderItem={(h) => <ShareChangeRow change={h} />}
      />
    </>
  );
}

/** Deleting a rule, confirmed first; `onDone` gets the outcome in words. */
export function RemoveRuleDialog({
  rule,
  onCancel,
  onDone,
}: {
  rule: ShareRule | null;
  onCancel: () => void;
  onDone: (toast: { message: string; kind: 'success' | 'error' }) => void;
}) {
  async function remove() {
    if (!rule) return;
    const out = await toOutcome<unknown>(() => profitSharingApi.remove(rule.id));
    onDone(out.ok ? { message: '已删除', kind: 'success' } : { message: out.error.message, kind: 'error' });
  }
  return (
    <ConfirmDialog
      open={rule !== null}
      danger
      title="删除分润规则？"
      message={rule ? `${rule.venue_name} · ${rule.partner_name}：此后的支付不再给该合伙人分润。` : undefined}
      onConfirm={() => void remove()}
      onCancel={onCancel}
    />
  );
}
