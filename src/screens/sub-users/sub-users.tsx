import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import { SUB_USER_ROLES, type SubUser, type SubUserRole } from '../../domain/sub-users.schema';
import { toOutcome } from '../../http/outcome';
import { subUsersApi } from '../../http/people-api';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { AdminMerchantFilter } from '../shared/admin-merchant-filter';
import { StaffPage } from '../shared/staff-page';
import { SubUserForm } from './parts/sub-user-form';

const PAGE_SIZE = 20;

/** `/sub-users/sub-users`: partners and employees; add and edit in a sheet, disable with a confirmation. */
export default function SubUsersScreen({ route }: ScreenProps) {
  const [filter, setFilter] = useState({
    q: '',
    role: '' as SubUserRole | '',
    merchant_id: undefined as number | undefined,
    page: 1,
  });
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const list = useRequest(subUsersApi.list, {
    ...filter,
    page_size: PAGE_SIZE,
    role: filter.role || undefined,
  });
  const [editing, setEditing] = useState<SubUser | 'new' | null>(null);
  const [pending, setPending] = useState<SubUser | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        setToast({ message: '已保存', kind: 'success' });
        list.refresh();
      }
    },
    [list],
  );
  async function toggle() {
    if (!pending) return;
    const status = pending.status === 'active' ? 'disabled' : 'active';
    const out = await toOutcome<unknown>(() => subUsersApi.update(pending.id, { status }));
    setPending(null);
    setToast(
      out.ok
        ? { message: status === 'disabled' ? '已停用，该账号已退出登录' : '已启用', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
    list.refresh();
  }
  const toolbar = (
    <div className="flex gap-2">
      <input
        type="search"
        className="input flex-1"
        placeholder="搜索用户名、姓名或手机号"
        aria-label="搜索子账号"
        value={filter.q}
        onChange={(e) => setFilter({ ...filter, q: e.target.value, page: 1 })}
      />
      <select
        className="select w-24"
        aria-label="角色"
        value={filter.role}
        onChange={(e) => setFilter({ ...filter, role: e.target.value as SubUserRole | '', page: 1 })}
      >
        <option value="">全部</option>
        {Object.entries(SUB_USER_ROLES).map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing('new')}>
        新增
      </button>
    </div>
  );
  const filters = isAdmin ? (
    <div className="flex flex-col gap-2">
      {toolbar}
      <AdminMerchantFilter
        value={filter.merchant_id}
        onChange={(merchant_id) => setFilter({ ...filter, merchant_id, page: 1 })}
      />
    </div>
  ) : (
    toolbar
  );
  return (
    <StaffPage route={route} description="为合伙人和员工开设子账号：设置初始密码、修改资料、重置密码或停用。">
      <ResourceList
        items={list.data?.items}
        total={list.data?.total ?? 0}
        page={filter.page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={(page) => setFilter({ ...filter, page })}
        keyOf={(u) => u.id}
        toolbar={filters}
        emptyTitle="暂无子账号"
        emptyDescription="点击“新增”添加合伙人或员工。"
        renderItem={(u) => (
          <div className="flex items-center gap-3 p-3" data-testid="sub-user-row">
            <button type="button" className="min-w-0 flex-1 text-left" onClick={() => setEditing(u)}>
              <p className="truncate font-medium">
                {u.name}
                {u.status === 'disabled' && <span className="ml-2 text-xs text-base-content/50">已停用</span>}
              </p>
              <p className="text-xs text-base-content/60">
                {SUB_USER_ROLES[u.role]} · {u.username}
                {u.phone && ` · ${u.phone}`}
                {isAdmin && ` · ${u.merchant_name}`}
              </p>
            </button>
            <button
              type="button"
              className={`btn btn-ghost btn-sm ${u.status === 'active' ? 'text-error' : ''}`}
              onClick={() => setPending(u)}
            >
              {u.status === 'active' ? '停用' : '启用'}
            </button>
          </div>
        )}
      />
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '新增子账号' : '编辑子账号'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <SubUserForm
            user={editing === 'new' ? null : editing}
            pickMerchant={isAdmin}
            merchantId={filter.merchant_id}
            onDone={onFormDone}
          />
        )}
      </Sheet>
      <ConfirmDialog
        open={pending !== null}
        danger={pending?.status === 'active'}
        title={pending?.status === 'active' ? `停用 ${pending.name}？` : `启用 ${pending?.name ?? ''}？`}
        message={
          pending?.status === 'active'
            ? '停用后该账号立即退出登录，且不能再登录；可随时重新启用。'
            : undefined
        }
        onConfirm={() => void toggle()}
        onCancel={() => setPending(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
