import { useSearch } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';

/** Only same-origin relative paths are used as the page to come back to (docs/decisions.md D7). */
export function safeRedirect(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\')
    ? raw
    : '/user/profile';
}

/** End-user sign-in: 微信登录 starts WeChat authorization and returns to the page that asked for it. */
export default function WechatLoginScreen(_: ScreenProps) {
  const search = useSearch();
  const redirect = safeRedirect(new URLSearchParams(search).get('redirect'));
  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col items-center bg-base-100 px-6 pt-[calc(env(safe-area-inset-top)+5rem)] text-center">
      <div
        className="mb-4 flex size-16 items-center justify-center rounded-full bg-success text-3xl text-success-content"
        aria-hidden="true"
      >
        ✓
      </div>
      <h1 className="text-xl font-bold">微信授权登录</h1>
      <p className="mt-2 text-sm text-base-content/60">
        使用微信账号登录后，即可扫码支付、充值并查看消费记录。
      </p>
      <button
        type="button"
        className="btn btn-success mt-10 w-full text-base"
        onClick={() => {
          location.href = '/backend/wechat/authorize?redirect=' + encodeURIComponent(redirect);
        }}
      >
        微信登录
      </button>
      <p className="mt-4 text-xs text-base-content/50">登录即表示同意平台的用户协议与隐私政策</p>
    </main>
  );
}
