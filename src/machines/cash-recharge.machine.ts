import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import {
  CashAmountSchema,
  CashNoteSchema,
  type CashRechargeResponse,
  type EmployeeMember,
} from '../domain/cash-recharge.schema';
import type { RechargePackage } from '../domain/api';
import { isValidMemberCode } from '../domain/member-code';
import { parseYuan } from '../domain/money';
import type { Outcome } from '../domain/outcome';

export interface CashRechargeBody {
  member_code: string;
  package_id?: number;
  amount_fen?: number;
  note: string;
}

export interface CashRechargeContext {
  code: string;
  member: EmployeeMember | null;
  packageId: number | null;
  amountText: string;
  note: string;
  errors: Record<string, string>;
  message: string | null;
  /** The Idempotency-Key of the recharge being confirmed: kept across retries, new for a new request. */
  key: string | null;
  result: CashRechargeResponse | null;
  canScan: boolean;
  newKey: () => string;
}

export type CashRechargeEvent =
  | { type: 'code.change'; value: string }
  | { type: 'code.submit' }
  | { type: 'scan.start' }
  | { type: 'scan.detected'; value: string }
  | { type: 'scan.failed'; message: string }
  | { type: 'scan.cancel' }
  | { type: 'package.select'; id: number }
  | { type: 'amount.change'; value: string }
  | { type: 'note.change'; value: string }
  | { type: 'member.clear' }
  | { type: 'recharge.submit' }
  | { type: 'confirm' }
  | { type: 'cancel' }
  | { type: 'retry' }
  | { type: 'next' };

const digits = (s: string) => s.replace(/[\s-]/g, '');

/** The request the screen would send now (amount in fen from the typed yuan), or the field messages. */
export function requestOf(
  c: Pick<CashRechargeContext, 'member' | 'packageId' | 'amountText' | 'note'>,
): { body: CashRechargeBody } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const note = CashNoteSchema.safeParse(c.note);
  if (!note.success) errors.note = note.error.issues[0]?.message ?? '请填写备注';
  let amount: number | undefined;
  if (c.packageId === null) {
    const fen = parseYuan(c.amountText);
    const ok = fen === null ? null : CashAmountSchema.safeParse(fen);
    if (c.amountText.trim() === '') errors.amount_fen = '请选择一个套餐或填写金额';
    else if (!ok?.success) errors.amount_fen = ok?.error.issues[0]?.message ?? '请输入正确的金额（元）';
    else amount = ok.data;
  }
  if (Object.keys(errors).length || !c.member || !note.success) return { errors };
  return {
    body: {
      member_code: c.member.code,
      ...(c.packageId !== null ? { package_id: c.packageId } : { amount_fen: amount! }),
      note: note.data,
    },
  };
}

/** What the chosen package or amount credits: paid and bonus, in fen (for the confirm dialog). */
export function creditOf(c: CashRechargeContext, packages: RechargePackage[]) {
  const pkg = packages.find((p) => p.id === c.packageId);
  if (pkg) return { pay_fen: pkg.pay_fen, bonus_fen: pkg.bonus_fen };
  return { pay_fen: parseYuan(c.amountText) ?? 0, bonus_fen: 0 };
}

const fresh = {
  member: null,
  packageId: null,
  amountText: '',
  note: '',
  errors: {},
  key: null,
  result: null,
};

/**
 * The employee's cash desk: find the member (typed or scanned code), choose a package or an amount, write the note,
 * confirm, credit; a failure without an answer keeps the Idempotency-Key so that a retry can never credit twice.
 * The calls (`lookup`, `submit`) and the key generator come from the edge; expected failures are values.
 */
export const cashRechargeMachine = setup({
  types: {
    context: {} as CashRechargeContext,
    events: {} as CashRechargeEvent,
    input: {} as { canScan: boolean; newKey: () => string },
  },
  actors: {
    lookup: fromPromise<Outcome<EmployeeMember>, { code: string }>(async () => ({
      ok: false,
      error: { status: 0, code: 'NOT_CONFIGURED', message: '未配置' },
    })),
    submit: fromPromise<Outcome<CashRechargeResponse>, { body: CashRechargeBody; key: string }>(async () => ({
      ok: false,
      error: { status: 0, code: 'NOT_CONFIGURED', message: '未配置' },
    })),
  },
  guards: {
    codeValid: ({ context }) => isValidMemberCode(digits(context.code)),
    detectedValid: ({ event }) => event.type === 'scan.detected' && isValidMemberCode(digits(event.value)),
    canScan: ({ context }) => context.canScan,
    requestValid: ({ context }) => 'body' in requestOf(context),
  },
  actions: {
    edited: assign({ key: null, message: null }),
  },
}).createMachine({
  id: 'cashRecharge',
  context: ({ input }) => ({
    ...fresh,
    code: '',
    message: null,
    canScan: input.canScan,
    newKey: input.newKey,
  }),
  initial: 'entering',
  states: {
    entering: {
      on: {
        'code.change': { actions: assign(({ event }) => ({ code: event.value, message: null })) },
        'code.submit': [
          { guard: 'codeValid', target: 'lookingUp' },
          { actions: assign({ message: '会员码应为 8 位数字，请核对后重新输入' }) },
        ],
        'scan.start': { guard: 'canScan', target: 'scanning', actions: assign({ message: null }) },
      },
    },
    scanning: {
      on: {
        'scan.detected': [
          {
            guard: 'detectedValid',
            target: 'lookingUp',
            actions: assign(({ event }) => ({ code: digits(event.value) })),
          },
          { target: 'entering', actions: assign({ message: '扫到的不是会员码，请重新扫描或直接输入' }) },
        ],
        'scan.failed': {
          target: 'entering',
          actions: assign(({ event }) => ({ message: event.message })),
        },
        'scan.cancel': 'entering',
      },
    },
    lookingUp: {
      invoke: {
        id: 'lookup',
        src: 'lookup',
        input: ({ context }) => ({ code: digits(context.code) }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'choosing',
            actions: assign(({ event }) => ({
              ...fresh,
              member: event.output.ok ? event.output.value : null,
              message: null,
            })),
          },
          {
            target: 'entering',
            actions: assign(({ event }) => ({
              message: event.output.ok ? null : event.output.error.message,
            })),
          },
        ],
        onError: { target: 'entering', actions: assign({ message: '查询失败，请重试' }) },
      },
    },
    choosing: {
      on: {
        'package.select': {
          actions: [assign(({ event }) => ({ packageId: event.id, amountText: '', errors: {} })), 'edited'],
        },
        'amount.change': {
          actions: [
            assign(({ event }) => ({ amountText: event.value, packageId: null, errors: {} })),
            'edited',
          ],
        },
        'note.change': { actions: [assign(({ event }) => ({ note: event.value })), 'edited'] },
        'member.clear': { target: 'entering', actions: assign({ ...fresh, code: '', message: null }) },
        'recharge.submit': [
          { guard: 'requestValid', target: 'confirming', actions: assign({ errors: {}, message: null }) },
          {
            actions: assign(({ context }) => {
              const r = requestOf(context);
              return { errors: 'errors' in r ? r.errors : {} };
            }),
          },
        ],
      },
    },
    confirming: {
      on: {
        confirm: {
          target: 'submitting',
          actions: assign(({ context }) => ({ key: context.key ?? context.newKey() })),
        },
        cancel: 'choosing',
      },
    },
    submitting: {
      invoke: {
        id: 'submit',
        src: 'submit',
        input: ({ context }) => {
          const r = requestOf(context);
          return { body: 'body' in r ? r.body : ({} as CashRechargeBody), key: context.key ?? '' };
        },
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'done',
            actions: assign(({ event }) => ({ result: event.output.ok ? event.output.value : null })),
          },
          {
            description:
              'No answer, or the server failed: the outcome is unknown, so the same key is retried.',
            guard: ({ event }) =>
              !event.output.ok && (event.output.error.status === 0 || event.output.error.status >= 500),
            target: 'failed',
            actions: assign(({ event }) => ({
              message: event.output.ok ? null : event.output.error.message,
            })),
          },
          {
            description:
              'Refused (bad input, reused key): nothing was credited; the employee corrects and confirms anew.',
            target: 'choosing',
            actions: assign(({ event }) => ({
              key: null,
              message: event.output.ok ? null : event.output.error.message,
            })),
          },
        ],
        onError: { target: 'failed', actions: assign({ message: '提交失败，请重试' }) },
      },
    },
    failed: {
      on: { retry: 'submitting', cancel: 'choosing' },
    },
    done: {
      on: { next: { target: 'entering', actions: assign({ ...fresh, code: '', message: null }) } },
    },
  },
});

export type CashRechargeSnapshot = SnapshotFrom<typeof cashRechargeMachine>;
