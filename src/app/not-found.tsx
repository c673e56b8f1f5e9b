import { Link } from 'wouter';

/** Any unknown path (docs/decisions.md D2): say so and offer the way home. */
export function NotFound() {
  return (
    <main className="flex min-h-[70dvh] flex-col items-center justify-center gap-3 px-6 text-center">
      <p className="text-5xl font-bold text-base-content/30">404</p>
      <h1 className="text-lg font-semibold">页面不存在</h1>
      <p className="text-sm text-base-content/60">您访问的地址不存在或已被移除。</p>
      <Link href="/" className="btn btn-primary btn-sm">
        返回首页
      </Link>
    </main>
  );
}
