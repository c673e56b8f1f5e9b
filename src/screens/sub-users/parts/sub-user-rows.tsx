import { SUB_USER_ROLES, type SubUser, type SubUserRole } from '../../../domain/sub-users.schema';
import { toOutcome } from '../../../http/outcome';
import { subUsersApi } from '../../../http/people-api';
import { ConfirmDialog } from '../../../ui';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';

export interface SubUserFilter {
  q: string;
  role: SubUserRole | '';
  merchant_id: number | undefined;
  page: number;
}

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
      <div className="flex gap-2">
        <input
          type="search"
          className="input flex-1"
          placeholder="搜索用户名、姓名或手机号"
          aria-label="搜索子账号"
          value={filter.q}
          onChange={(e) => onFilter({ ...filter, q: e.target.value, page: 1 })}
        />
        <select
          className="select w-24"
          aria-label="角色"
          value={filter.role}
          onChange={(e) => onFilter({ ...filter, role: e.target.value as SubUserRole | '', page: 1 })}
        >
          <option value="">全部</option>
          {Object.entries(SUB_USER_ROLES).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-primary btn-sm" onClick={onAdd}>
          新增
        </button>
      </div>
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
    <div className="flex items-center gap-3 p-3" data-testid="sub-user-row">
      <button type="button" className="min-w-0 flex-1 text-left" onClick={onEdit}>
        <p className="truncate font-medium">
          {u.name}
          {u.status === 'disabled' && <span className="ml-2 text-xs text-base-content/50">已停用</span>}
        </p>
        <p className="text-xs text-base-content/60">
          {SUB_USER_ROLES[u.role]} · {u.username}
          {u.phone && ` · ${u.phone}`}
          {showMerchant && ` · ${u.merchant_name}`}
        </p>
      </button>
      <button
        type="button"
        className={`btn btn-ghost btn-sm ${u.status === 'active' ? 'text-error' : ''}`}
        onClick={onToggle}
      >
        {u.status === 'active' ? '停用' : '启用'}
      </button>
    </div>
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
