/**
 * The withdrawal lifecycle table: every (status, action) pair, legal or not, for the admin and for every other level.
 */
import { describe, expect, it } from 'vitest';
import {
  isFinal,
  transition,
  type WithdrawalAction,
  type WithdrawalStatus,
} from '../../../server/services/withdrawals/lifecycle';

const statuses: WithdrawalStatus[] = ['requested', 'approved', 'paid', 'rejected'];
const actions: WithdrawalAction[] = ['approve', 'reject', 'pay'];
const legal: Record<string, WithdrawalStatus> = {
  'requested/approve': 'approved',
  'requested/reject': 'rejected',
  'approved/pay': 'paid',
};

describe('withdrawal lifecycle', () => {
  for (const from of statuses) {
    for (const action of actions) {
      const to = legal[`${from}/${action}`];
      it(`admin: ${action} from ${from} → ${to ?? '409'}`, () => {
        const r = transition(from, action, 1);
        if (to) expect(r).toEqual({ ok: true, to });
        else expect(r).toMatchObject({ ok: false, status: 409, code: 'illegal_transition' });
      });
      for (const level of [2, 3, 4]) {
        it(`level ${level}: ${action} from ${from} → 403`, () => {
          expect(transition(from, action, level)).toMatchObject({
            ok: false,
            status: 403,
            code: 'forbidden',
          });
        });
      }
    }
  }

  it('no action leaves a final status', () => {
    for (const from of statuses.filter(isFinal)) {
      for (const action of actions) expect(transition(from, action, 1).ok).toBe(false);
    }
    expect(statuses.filter(isFinal)).toEqual(['paid', 'rejected']);
  });
});
