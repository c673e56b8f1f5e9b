import { EmptyState } from '../states';

/** The member has no WeChat session: say so and offer 微信登录. */
export function SignInPrompt({ onSignIn }: { onSignIn: () => void }) {
  return (
    <EmptyState icon="" title="请先登录" description="使用微信登录后查看">
      <button type="button" className="btn btn-success mt-2" onClick={onSignIn}>
        微信登录
      </button>
    </EmptyState>
  );
}
