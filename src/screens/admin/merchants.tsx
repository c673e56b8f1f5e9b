import { useState } from 'react';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useResourceList } from '../shared/use-resource-list';
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
import { SearchSelectToolbar, StatusRow, StatusToggle } from '../shared/list-parts';
import { StaffPage } from '../shared/staff-page';

const PAGE_SIZE = 20;

type Filter = { q: string; status: MerchantStatus | ''; page: number };

/** `/admin/merchants`: every merchant with its owner, fee rate and status; search, filter, add, edit, disable. */
export default function MerchantsScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const { filter, refilter, list, listProps } = useResourceList(
    merchantsApi.list,
    { q: '', status: '', page: 1 } as Filter,
    PAGE_SIZE,
    (f) => ({ ...f, status: f.status || undefined }),
  );
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
  const filtered = Boolean(filter.q || filter.status);
  return (
    <StaffPage route={route} description="平台入驻商户及其费率、状态与负责人账号。">
      <ResourceList
        {...listProps}
        keyOf={(m) => m.id}
        toolbar={
          <SearchSelectToolbar
            search={{
              value: filter.q,
              placeholder: '搜索名称或账号',
              label: '搜索商户',
              onChange: (q) => refilter({ q }),
            }}
            select={{
              value: filter.status,
              label: '状态',
              options: MERCHANT_STATUSES,
              onChange: (status) => refilter({ status }),
            }}
            onAdd={() => navigate('/admin/merchants/add')}
          />
        }
        emptyTitle={filtered ? '没有符合条件的商户' : '暂无商户'}
        emptyDescription={filtered ? '换个搜索词或状态试试。' : '点击“新增”添加第一个商户。'}
        renderItem={(m) => (
          <MerchantRow
            merchant={m}
            onOpen={() => navigate(`/admin/merchants/${m.id}`)}
            onToggle={() => setPending(m)}
          />
        )}
      />
      <StatusConfirm
        pending={pending}
        onConfirm={() => void confirmPending()}
        onCancel={() => setPending(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}

/** A merchant: name (opens the form), contact and fee rate, owner account, and 停用/启用. */
function MerchantRow({
  merchant: m,
  onOpen,
  onToggle,
}: {
  merchant: Merchant;
  onOpen: () => void;
  onToggle: () => void;
}) {
  return (
    <StatusRow
      testId="merchant-row"
      name={m.name}
      off={m.status === 'disabled'}
      offClassName="text-error"
      onOpen={onOpen}
      actions={<StatusToggle active={m.status === 'active'} onClick={onToggle} />}
    >
      <p className="truncate text-xs text-base-content/60">
        {m.contact_name || '未填联系人'}
        {m.contact_phone && ` · ${m.contact_phone}`} · 费率 {feeRatePercent(m.fee_rate_bp)}
      </p>
      <p className="truncate text-xs text-base-content/60">账号 {m.owner?.username ?? '无'}</p>
    </StatusRow>
  );
}

/** Disabling signs the merchant's staff out and stops its pay pages: ask first (so does enabling again). */
function StatusConfirm({
  pending,
  onConfirm,
  onCancel,
}: {
  pending: Merchant | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
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
      onConfirm={onConfirm}
      onCancel={onCancel}
    />
  );
}
