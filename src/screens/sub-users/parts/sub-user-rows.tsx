import { SUB_USER_ROLES, type SubUser, type SubUserRole } from '../../../domain/sub-users.schema';
import { toOutcome } from '../../../http/outcome';
import { subUsersApi } from '../../../http/people-api';
import { ConfirmDialog } from '../../../ui';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';
import { SearchSelectToolbar, StatusRow, StatusToggle } from '../../shared/list-parts';

export type SubUserFilter = {
  q: string;
  role: SubUserRole | '';
  merchant_id: number | undefined;
  page: number;
};

/** Search, role, add; and the admin's merchant filter under them. */
export function SubUsersFilters({
  filter,
  onFilter,
  isAdmin,
  onAdd,
}: {
  filter: SubUserFilter;
  onFilter: (f: SubUserFilter) => void;
  isAdmin: boolean;
  onAdd: () => void;
}) {
  return (
    <div className="flex flex-col gap-2">
      <SearchSelectToolbar
        search={{
          value: filter.q,
          placeholder: '搜索用户名、姓名或手机号',
          label: '搜索子账号',
          onChange: (q) => onFilter({ ...filter, q, page: 1 }),
        }}
        select={{
          value: filter.role,
          label: '角色',
          options: SUB_USER_ROLES,
          onChange: (role) => onFilter({ ...filter, role, page: 1 }),
        }}
        onAdd={onAdd}
      />
      {isAdmin && (
        <AdminMerchantFilter
          value={filter.merchant_id}
          onChange={(merchant_id) => onFilter({ ...filter, merchant_id, page: 1 })}
        />
      )}
    </div>
  );
}

/** One account: name (disabled marked), role, username, phone (the admin: its merchant); edit, disable or enable. */
export function SubUserRow({
  user: u,
  showMerchant,
  onEdit,
  onToggle,
}: {
  user: SubUser;
  showMerchant: boolean;
  onEdit: () => void;
  onToggle: () => void;
}) {
  return (
    <StatusRow
      testId="sub-user-row"
      name={u.name}
      off={u.status === 'disabled'}
      onOpen={onEdit}
      actions={<StatusToggle active={u.status === 'active'} onClick={onToggle} />}
    >
      <p className="text-xs text-base-content/60">
        {SUB_USER_ROLES[u.role]} · {u.username}
        {u.phone && ` · ${u.phone}`}
        {showMerchant && ` · ${u.merchant_name}`}
      </p>
    </StatusRow>
  );
}

/** Disable (signs the account out at once; a partner's rules stop sharing) or enable, confirmed first. */
export function ToggleStatusDialog({
  user,
  onCancel,
  onDone,
}: {
  user: SubUser | null;
  onCancel: () => void;
  onDone: (toast: { message: string; kind: 'success' | 'error' }) => void;
}) {
  const disabling = user?.status === 'active';
  async function toggle() {
    if (!user) return;
    const status = disabling ? 'disabled' : 'active';
    const out = await toOutcome<unknown>(() => subUsersApi.update(user.id, { status }));
    onDone(
      out.ok
        ? { message: disabling ? '已停用，该账号已退出登录' : '已启用', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
  }
  const partnerNote = user?.role === 'partner' ? '其分润规则保留但暂停分润，此后的分润归商户。' : '';
  return (
    <ConfirmDialog
      open={user !== null}
      danger={disabling}
      title={disabling ? `停用 ${user?.name ?? ''}？` : `启用 ${user?.name ?? ''}？`}
      message={
        disabling ? `停用后该账号立即退出登录，且不能再登录；可随时重新启用。${partnerNote}` : undefined
      }
      onConfirm={() => void toggle()}
      onCancel={onCancel}
    />
  );
}
