import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import { SHARE_ACTIONS, formatBp, type ShareRule } from '../../domain/profit-sharing.schema';
import { toOutcome } from '../../http/outcome';
import { profitSharingApi } from '../../http/people-api';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { shortTime } from '../../ui/user/format';
import { StaffPage } from '../shared/staff-page';
import { RulesToolbar, ShareRuleForm } from './parts/share-rule-form';

const PAGE_SIZE = 20;

/**
 * `/sub-users/profit-sharing`: rules of venue x partner x ratio, with the history of every change. The admin first
 * chooses the merchant whose venues and partners to edit (the lists show all merchants until then).
 */
export default function ProfitSharingScreen({ route }: ScreenProps) {
  const [page, setPage] = useState(1);
  const [historyPage, setHistoryPage] = useState(1);
  const [merchantId, setMerchantId] = useState<number | undefined>(undefined);
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const list = useRequest(profitSharingApi.list, { page, page_size: PAGE_SIZE, merchant_id: merchantId });
  const history = useRequest(profitSharingApi.history, {
    page: historyPage,
    page_size: PAGE_SIZE,
    merchant_id: merchantId,
  });
  const canAdd = me.data !== undefined && (!isAdmin || merchantId !== undefined);
  const [editing, setEditing] = useState<ShareRule | 'new' | null>(null);
  const [removing, setRemoving] = useState<ShareRule | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const refresh = useCallback(() => {
    list.refresh();
    history.refresh();
  }, [list, history]);
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        setToast({ message: '已保存，此后的支付按新比例分润', kind: 'success' });
        refresh();
      }
    },
    [refresh],
  );
  async function remove() {
    if (!removing) return;
    const out = await toOutcome<unknown>(() => profitSharingApi.remove(removing.id));
    setRemoving(null);
    setToast(out.ok ? { message: '已删除', kind: 'success' } : { message: out.error.message, kind: 'error' });
    refresh();
  }
  return (
    <StaffPage
      route={route}
      description="按场地为合伙人设置分润比例；同一场地合计不超过 100%，修改只影响此后的支付。"
    >
      <ResourceList
        items={list.data?.items}
        total={list.data?.total ?? 0}
        page={page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={setPage}
        keyOf={(r) => r.id}
        toolbar={
          <RulesToolbar
            isAdmin={isAdmin}
            merchantId={merchantId}
            canAdd={canAdd}
            onMerchant={(id) => {
              setMerchantId(id);
              setPage(1);
              setHistoryPage(1);
            }}
            onAdd={() => setEditing('new')}
          />
        }
        emptyTitle="暂无分润规则"
        emptyDescription="点击“新增规则”为合伙人设置分润。"
        renderItem={(r) => (
          <div className="flex items-center gap-3 p-3" data-testid="share-rule-row">
            <button type="button" className="min-w-0 flex-1 text-left" onClick={() => setEditing(r)}>
              <p className="truncate font-medium">
                {r.partner_name} · {formatBp(r.ratio_bp)}
                {r.partner_status === 'disabled' && (
                  <span className="ml-2 text-xs text-warning">账号已停用，暂不分润</span>
                )}
              </p>
              <p className="text-xs text-base-content/60">
                {r.venue_name}（合计 {formatBp(r.venue_total_bp)}）· {shortTime(r.valid_from)} 起
                {isAdmin && merchantId === undefined && ` · ${r.merchant_name}`}
              </p>
            </button>
            <button type="button" className="btn btn-ghost btn-sm text-error" onClick={() => setRemoving(r)}>
              删除
            </button>
          </div>
        )}
      />
      <h2 className="px-4 text-sm font-semibold text-base-content/70">变更记录</h2>
      <ResourceList
        items={history.data?.items}
        total={history.data?.total ?? 0}
        page={historyPage}
        pageSize={PAGE_SIZE}
        loading={history.loading}
        error={history.error}
        onRetry={history.canRetry ? history.retry : undefined}
        onPage={setHistoryPage}
        keyOf={(h) => h.id}
        emptyTitle="暂无变更记录"
        renderItem={(h) => (
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
        )}
      />
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '新增分润规则' : '修改分润比例'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <ShareRuleForm
            rule={editing === 'new' ? null : editing}
            merchantId={merchantId}
            onDone={onFormDone}
          />
        )}
      </Sheet>
      <ConfirmDialog
        open={removing !== null}
        danger
        title="删除分润规则？"
        message={
          removing
            ? `${removing.venue_name} · ${removing.partner_name}：此后的支付不再给该合伙人分润。`
            : undefined
        }
        onConfirm={() => void remove()}
        onCancel={() => setRemoving(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
