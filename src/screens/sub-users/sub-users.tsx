import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { SubUser } from '../../domain/sub-users.schema';
import { subUsersApi } from '../../http/people-api';
import { Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { StaffPage } from '../shared/staff-page';
import { SubUserForm } from './parts/sub-user-form';
import { SubUserRow, SubUsersFilters, ToggleStatusDialog, type SubUserFilter } from './parts/sub-user-rows';

const PAGE_SIZE = 20;

/** `/sub-users/sub-users`: partners and employees; add and edit in a sheet, disable with a confirmation. */
export default function SubUsersScreen({ route }: ScreenProps) {
  const [filter, setFilter] = useState<SubUserFilter>({ q: '', role: '', merchant_id: undefined, page: 1 });
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
        toolbar={
          <SubUsersFilters
            filter={filter}
            onFilter={setFilter}
            isAdmin={isAdmin}
            onAdd={() => setEditing('new')}
          />
        }
        emptyTitle="暂无子账号"
        emptyDescription="点击“新增”添加合伙人或员工。"
        renderItem={(u) => (
          <SubUserRow
            user={u}
            showMerchant={isAdmin}
            onEdit={() => setEditing(u)}
            onToggle={() => setPending(u)}
          />
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
      <ToggleStatusDialog
        user={pending}
        onCancel={() => setPending(null)}
        onDone={(t) => {
          setPending(null);
          setToast(t);
          list.refresh();
        }}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
