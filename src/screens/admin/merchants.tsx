import { useState } from 'react';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import {
  MERCHANT_DISABLE_WARNING,
  MERCHANT_STATUSES,
  feeRatePercent,
  type Merchant,
  type MerchantStatus,
} from '../../domain/merchants.schema';
import { toOutcome } from '../../http/outcome';
import { merchantsApi } from '../../http/merchants-api';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { StaffPage } from '../shared/staff-page';

const PAGE_SIZE = 20;

/** `/admin/merchants`: every merchant with its owner, fee rate and status; search, filter, add, edit, disable. */
export default function MerchantsScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const [filter, setFilter] = useState({ q: '', status: '' as MerchantStatus | '', page: 1 });
  const list = useRequest(merchantsApi.list, {
    ...filter,
    page_size: PAGE_SIZE,
    status: filter.status || undefined,
  });
  const [pending, setPending] = useState<Merchant | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  async function confirmPending() {
    if (!pending) return;
    const status = pending.status === 'active' ? 'disabled' : 'active';
    const out = await toOutcome(() => merchantsApi.update(pending.id, { status }));
    setPending(null);
    setToast(
      out.ok
        ? { message: status === 'disabled' ? '已停用，该商户员工已退出登录' : '已重新启用', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
    list.refresh();
  }
  const toolbar = (
    <div className="flex gap-2">
      <input
        type="search"
        className="input flex-1"
        placeholder="搜索名称或账号"
        aria-label="搜索商户"
        value={filter.q}
        onChange={(e) => setFilter({ ...filter, q: e.target.value, page: 1 })}
      />
      <select
        className="select w-24"
        aria-label="状态"
        value={filter.status}
        onChange={(e) => setFilter({ ...filter, status: e.target.value as MerchantStatus | '', page: 1 })}
      >
        <option value="">全部</option>
        {Object.entries(MERCHANT_STATUSES).map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn btn-primary btn-sm"
        onClick={() => navigate('/admin/merchants/add')}
      >
        新增
      </button>
    </div>
  );
  return (
    <StaffPage route={route} description="平台入驻商户及其费率、状态与负责人账号。">
      <ResourceList
        items={list.data?.items}
        total={list.data?.total ?? 0}
        page={filter.page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={(page) => setFilter({ ...filter, page })}
        keyOf={(m) => m.id}
        toolbar={toolbar}
        emptyTitle={filter.q || filter.status ? '没有符合条件的商户' : '暂无商户'}
        emptyDescription={filter.q || filter.status ? '换个搜索词或状态试试。' : '点击“新增”添加第一个商户。'}
        renderItem={(m) => (
          <div className="flex items-center gap-3 p-3" data-testid="merchant-row">
            <button
              type="button"
              className="min-w-0 flex-1 text-left"
              onClick={() => navigate(`/admin/merchants/${m.id}`)}
            >
              <p className="truncate font-medium">
                {m.name}
                {m.status === 'disabled' && <span className="ml-2 text-xs text-error">已停用</span>}
              </p>
              <p className="truncate text-xs text-base-content/60">
                {m.contact_name || '未填联系人'}
                {m.contact_phone && ` · ${m.contact_phone}`} · 费率 {feeRatePercent(m.fee_rate_bp)}
              </p>
              <p className="truncate text-xs text-base-content/60">账号 {m.owner?.username ?? '无'}</p>
            </button>
            <button
              type="button"
              className={`btn btn-ghost btn-sm ${m.status === 'active' ? 'text-error' : ''}`}
              onClick={() => setPending(m)}
            >
              {m.status === 'active' ? '停用' : '启用'}
            </button>
          </div>
        )}
      />
      <ConfirmDialog
        open={pending !== null}
        danger={pending?.status === 'active'}
        title={
          pending?.status === 'active' ? `停用「${pending.name}」？` : `重新启用「${pending?.name ?? ''}」？`
        }
        message={
          pending?.status === 'active'
            ? MERCHANT_DISABLE_WARNING
            : '启用后，该商户的员工可以重新登录，设备恢复接受支付。'
        }
        confirmLabel={pending?.status === 'active' ? '停用' : '启用'}
        onConfirm={() => void confirmPending()}
        onCancel={() => setPending(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
