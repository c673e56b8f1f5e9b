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
import { useEditing } from '../shared/use-editing';
import { useResourceList } from '../shared/use-resource-list';
import { SubUserForm } from './parts/sub-user-form';
import { SubUserRow, SubUsersFilters, ToggleStatusDialog, type SubUserFilter } from './parts/sub-user-rows';

const PAGE_SIZE = 20;

/** `/sub-users/sub-users`: partners and employees; add and edit in a sheet, disable with a confirmation. */
export default function SubUsersScreen({ route }: ScreenProps) {
  const { filter, setFilter, list, listProps } = useResourceList(
    subUsersApi.list,
    { q: '', role: '', merchant_id: undefined, page: 1 } as SubUserFilter,
    PAGE_SIZE,
    (f) => ({ ...f, role: f.role || undefined }),
  );
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const [pending, setPending] = useState<SubUser | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const saved = useCallback((message: string) => setToast({ message, kind: 'success' }), []);
  const { editing, setEditing, onFormDone } = useEditing<SubUser>('已保存', saved, list.refresh);
  return (
    <StaffPage route={route} description="为合伙人和员工开设子账号：设置初始密码、修改资料、重置密码或停用。">
      <ResourceList
        {...listProps}
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
