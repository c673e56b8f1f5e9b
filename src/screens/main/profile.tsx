import { useSignals } from '@preact/signals-react/runtime';
import { useState } from 'react';
import { useSession } from '../../app/root-actors.context';
import type { ScreenProps } from '../../app/screen-registry';
import { level, role, userId, userName } from '../../app/session.signals';
import { forgetMe } from '../../app/staff-features';
import { ROLE_LABELS, type Role } from '../../domain/levels';
import { staffApi } from '../../http/staff-api';
import { ConfirmDialog, PageHeader } from '../../ui';

/** Staff profile: who is signed in, and 退出登录 (revokes the token on the server, then clears the session). */
export default function ProfileScreen({ route }: ScreenProps) {
  useSignals();
  const session = useSession();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  async function signOut() {
    setBusy(true);
    try {
      await staffApi.logout();
    } catch {
      // Already revoked or offline: the local session is cleared either way.
    }
    forgetMe();
    session.logout();
  }

  const rows: [string, string][] = [
    ['角色', ROLE_LABELS[role.value as Role] ?? role.value ?? '—'],
    ['级别', String(level.value)],
    ['账号编号', userId.value === null ? '—' : String(userId.value)],
    ['所属商户', session.merchantId === null ? '—' : `商户 #${session.merchantId}`],
  ];
  return (
    <>
      <PageHeader title={route.title} />
      <main data-screen="profile" className="px-4 pt-4">
        <section className="flex items-center gap-4 rounded-box bg-base-100 p-4">
          <div className="avatar avatar-placeholder">
            <div className="w-14 rounded-full bg-primary text-primary-content">
              <span className="text-xl">{(userName.value || '用').slice(0, 1)}</span>
            </div>
          </div>
          <div>
            <p className="text-lg font-semibold" data-testid="profile-name">
              {userName.value || '未命名用户'}
            </p>
            <p className="text-sm text-base-content/60">{rows[0]?.[1]}</p>
          </div>
        </section>
        <ul className="list mt-4 rounded-box bg-base-100">
          {rows.map(([label, value]) => (
            <li key={label} className="list-row">
              <span className="text-base-content/60">{label}</span>
              <span className="list-col-grow text-right">{value}</span>
            </li>
          ))}
        </ul>
        <button
          type="button"
          className="btn btn-error btn-outline mt-6 w-full"
          onClick={() => setConfirming(true)}
        >
          退出登录
        </button>
      </main>
      <ConfirmDialog
        open={confirming}
        title="退出登录"
        message="确定要退出当前账号吗？"
        confirmLabel="退出登录"
        danger
        busy={busy}
        onConfirm={() => void signOut()}
        onCancel={() => setConfirming(false)}
      />
    </>
  );
}
