/**
 * The withdrawal lifecycle as one table: requested → approved → paid, or requested → rejected. Only the platform
 * admin (level 1) moves a withdrawal; a merchant or partner may only request one. Anything the table does not list
 * is illegal and must change nothing: the caller answers 409 (wrong state) or 403 (wrong actor).
 */
export type WithdrawalStatus = 'requested' | 'approved' | 'paid' | 'rejected';
export type WithdrawalAction = 'approve' | 'reject' | 'pay';

const TRANSITIONS: Record<WithdrawalAction, { from: WithdrawalStatus; to: WithdrawalStatus }> = {
  approve: { from: 'requested', to: 'approved' },
  reject: { from: 'requested', to: 'rejected' },
  pay: { from: 'approved', to: 'paid' },
};

export type TransitionResult =
  | { ok: true; to: WithdrawalStatus }
  | { ok: false; status: 403 | 409; code: 'forbidden' | 'illegal_transition'; message: string };

const STATUS_TEXT: Record<WithdrawalStatus, string> = {
  requested: '待审核',
  approved: '已批准',
  paid: '已打款',
  rejected: '已驳回',
};

/** Whether `action` by an actor of `actorLevel` may move a withdrawal in `from`, and to which status. */
export function transition(
  from: WithdrawalStatus,
  action: WithdrawalAction,
  actorLevel: number,
): TransitionResult {
  if (actorLevel !== 1) {
    return { ok: false, status: 403, code: 'forbidden', message: '只有平台管理员可以处理提现' };
  }
  const rule = TRANSITIONS[action];
  if (rule.from !== from) {
    return {
      ok: false,
      status: 409,
      code: 'illegal_transition',
      message: `提现${STATUS_TEXT[from]}，不能执行此操作`,
    };
  }
  return { ok: true, to: rule.to };
}

/** A final status: no action leaves it. */
export function isFinal(status: WithdrawalStatus): boolean {
  return status === 'paid' || status === 'rejected';
}
