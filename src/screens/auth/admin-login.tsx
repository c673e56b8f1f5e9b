import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useSession } from '../../app/root-actors.context';
import { forgetMe } from '../../app/staff-features';
import { PARTNER_LEVEL } from '../../domain/levels';
import { isThrownRequestError } from '../../domain/outcome';
import { staffApi } from '../../http/staff-api';

/** Staff sign-in (/admin-login). Lands on the first tab of the level: level 3 -> /wallet, others -> /dashboard. */
export default function AdminLoginScreen(_: ScreenProps) {
  const session = useSession();
  const [, navigate] = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const name = username.trim();
    const problem = signInProblem(name, password);
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { token, user } = await staffApi.login({ username: name, password });
      forgetMe();
      session.login(token, user);
      navigate(user.level === PARTNER_LEVEL ? '/wallet' : '/dashboard', { replace: true });
    } catch (err) {
      setError(isThrownRequestError(err) ? err.message : '登录失败，请稍后重试');
      setBusy(false);
    }
  }

  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col bg-base-200 px-6 pt-[calc(env(safe-area-inset-top)+4rem)]">
      <Brand />
      <form className="card bg-base-100 shadow-sm" onSubmit={submit} noValidate>
        <div className="card-body gap-4">
          <h2 className="card-title text-lg">管理员登录</h2>
          <LabelledInput
            label="用户名"
            name="username"
            autoComplete="username"
            value={username}
            onChange={setUsername}
          />
          <LabelledInput
            label="密码"
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
          />
          {error && (
            <div role="alert" className="alert alert-error alert-soft text-sm">
              {error}
            </div>
          )}
          <button type="submit" className="btn btn-primary w-full" disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {busy ? '登录中…' : '登录'}
          </button>
        </div>
      </form>
      <p className="mt-6 text-center text-xs text-base-content/50">
        平台管理员、商户、合伙人与员工账号均在此登录
      </p>
    </main>
  );
}

/**
 * What is wrong with the typed sign-in, or null. The same rules as LoginRequestSchema, written out so the sign-in
 * chunk does not pull in zod (~26 KB gzip).
 */
function signInProblem(name: string, password: string): string | null {
  if (!name) return '请输入用户名';
  if (name.length > 64) return '用户名过长';
  if (!password) return '请输入密码';
  if (password.length > 128) return '密码过长';
  return null;
}

function Brand() {
  return (
    <div className="mb-8 text-center">
      <div className="mx-auto mb-3 flex size-14 items-center justify-center rounded-2xl bg-primary text-2xl text-primary-content">
        扫
      </div>
      <h1 className="text-2xl font-bold">扫码即用</h1>
      <p className="mt-1 text-sm text-base-content/60">自助设备运营管理平台</p>
    </div>
  );
}

/** A label above its input; the placeholder says 请输入<label>. */
function LabelledInput({
  label,
  name,
  type,
  autoComplete,
  value,
  onChange,
}: {
  label: string;
  name: string;
  type?: 'password';
  autoComplete: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label className="block">
      <span className="mb-1 block text-sm text-base-content/70">{label}</span>
      <input
        className="input w-full"
        name={name}
        type={type}
        autoComplete={autoComplete}
        placeholder={`请输入${label}`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}
