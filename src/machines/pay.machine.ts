/**
 * The end-user pay journey on `/user/pay` (docs/decisions.md D7): load the device, venue, prices and the member's
 * wallet; let the user choose; pay from the wallet or with WeChat Pay; wait until the server (never the browser)
 * confirms the payment and the device acknowledges; then hand over to `/user/using`. Every failure ends in
 * `failed` with a Chinese reason and a way forward. Implementations live in `pay.setup.ts`; the edge supplies the
 * HTTP actors, the WeChat Pay prompt, attempt persistence and navigation with `payMachine.provide(...)`.
 */
import { assign } from 'xstate';
import { initialPayContext, okValue, paySetup, orderPolling, refusal, refusalUnknown } from './pay.setup';
export { deviceIsAvailable, selectedPriceOf, walletBalanceOf } from './pay.setup';
export type PayMachine = typeof payMachine;

/** The pay journey of one device page. */
export const payMachine = paySetup.createMachine({
  id: 'pay',
  initial: 'loading',
  context: ({ input }) => initialPayContext(input),
  states: {
    loading: {
      description:
        'Public device data and the member profile load together; no sign-in is needed to see the device.',
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({ device_id: context.device_id, venue_id: context.venue_id }),
        onDone: [
          {
            guard: ({ event }) => !event.output.ok,
            target: 'failed',
            actions: {
              type: 'fail',
              params: ({ event }) =>
                event.output.ok ? refusalUnknown('load') : refusal(event.output.error, 'load'),
            },
          },
          {
            guard: 'returnedCancelled',
            target: 'choosing',
            actions: [
              { type: 'storeData', params: ({ event }) => okValue(event.output) },
              'forgetAttempt',
              { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
              assign({ notice: '已取消支付' }),
            ],
          },
          {
            guard: 'hasOrderToCheck',
            target: 'waitingForPayment.checking',
            actions: [
              { type: 'storeData', params: ({ event }) => okValue(event.output) },
              assign({
                attempt: ({ context }) => {
                  const order_no =
                    context.returned && context.returned !== 'cancel'
                      ? context.returned.order_no
                      : context.attempt?.order_no;
                  return context.attempt
                    ? { ...context.attempt, order_no }
                    : {
                        key: '',
                        device_id: context.device_id,
                        venue_id: context.venue_id,
                        price_id: 0,
                        method: 'wechat' as const,
                        order_no,
                      };
                },
                returned: null,
              }),
            ],
          },
          {
            target: 'choosing',
            actions: {
              type: 'storeData',
              params: ({ event }) => okValue(event.output),
            },
          },
        ],
        onError: { target: 'failed', actions: { type: 'fail', params: () => refusalUnknown('load') } },
      },
    },
    choosing: {
      on: {
        'price.select': {
          guard: ({ context, event }) => Boolean(context.data?.prices.some((p) => p.id === event.price_id)),
          actions: assign({ price_id: ({ event }) => event.price_id, notice: null }),
        },
        'pay.submit': [
          { guard: ({ context }) => !context.data?.profile, actions: 'goToSignIn' },
          {
            guard: { type: 'canSubmit', params: ({ event }) => ({ method: event.method }) },
            target: 'confirming',
            actions: assign({ method: ({ event }) => event.method, notice: null }),
          },
        ],
        'signin.start': { actions: 'goToSignIn' },
        'recharge.open': {
          actions: {
            type: 'goToRecharge',
            params: ({ context }) => ({ merchant_id: context.data?.device.merchant_id ?? null }),
          },
        },
        'feedback.open': {
          actions: { type: 'goToFeedback', params: ({ context }) => ({ device_id: context.device_id }) },
        },
      },
    },
    confirming: {
      description: 'The user sees price, device and method once more before any money moves.',
      on: {
        'pay.confirm': [
          {
            guard: { type: 'canSubmit', params: ({ context }) => ({ method: context.method }) },
            target: 'paying',
            actions: [
              'beginAttempt',
              { type: 'saveAttempt', params: ({ context }) => ({ attempt: context.attempt! }) },
            ],
          },
          { target: 'choosing' },
        ],
        'pay.cancel': 'choosing',
      },
    },
    paying: {
      invoke: {
        id: 'pay',
        src: 'pay',
        input: ({ context }) => ({
          key: context.attempt?.key ?? '',
          request: {
            device_id: context.device_id,
            venue_id: context.venue_id,
            price_id: context.attempt?.price_id ?? 0,
            method: context.attempt?.method ?? context.method,
          },
        }),
        onDone: [
          {
            guard: ({ event }) => !event.output.ok && event.output.error.status === 401,
            target: 'choosing',
            actions: [
              assign({ data: ({ context }) => context.data && { ...context.data, profile: null } }),
              'goToSignIn',
            ],
          },
          {
            // No answer, a server error or a request still in progress: the payment may have happened, so the retry
            // must reuse the same Idempotency-Key.
            guard: ({ event }) =>
              !event.output.ok &&
              (event.output.error.status === 0 ||
                event.output.error.status >= 500 ||
                [408, 409, 429].includes(event.output.error.status)),
            target: 'failed',
            actions: {
              type: 'fail',
              params: ({ event }) =>
                event.output.ok
                  ? refusalUnknown('pay')
                  : {
                      ...refusal(event.output.error, 'pay'),
                      message: `${event.output.error.message}，请重试`,
                    },
            },
          },
          {
            // A clear refusal (balance, device, price, venue): nothing was paid; the next try is a new attempt.
            guard: ({ event }) => !event.output.ok,
            target: 'failed',
            actions: [
              'forgetAttempt',
              { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
              {
                type: 'fail',
                params: ({ event }) =>
                  event.output.ok ? refusalUnknown('none') : refusal(event.output.error, 'none'),
              },
            ],
          },
          {
            guard: ({ event }) => event.output.ok && event.output.value.order.status === 'started',
            target: 'running',
            actions: { type: 'recordOrder', params: ({ event }) => okValue(event.output) },
          },
          {
            guard: ({ event }) => event.output.ok && Boolean(event.output.value.jsapi),
            target: 'waitingForPayment',
            actions: [
              { type: 'recordOrder', params: ({ event }) => okValue(event.output) },
              { type: 'saveAttempt', params: ({ context }) => ({ attempt: context.attempt! }) },
            ],
          },
          {
            target: 'starting',
            actions: [
              { type: 'recordOrder', params: ({ event }) => okValue(event.output) },
              { type: 'saveAttempt', params: ({ context }) => ({ attempt: context.attempt! }) },
            ],
          },
        ],
        onError: { target: 'failed', actions: { type: 'fail', params: () => refusalUnknown('pay') } },
      },
    },
    waitingForPayment: {
      description:
        'WeChat Pay: the bridge or the sandbox cashier, then the server is asked until it saw the money.',
      entry: 'resetPolls',
      initial: 'prompting',
      states: {
        prompting: {
          invoke: {
            id: 'promptPayment',
            src: 'promptPayment',
            input: ({ context }) => ({ jsapi: context.jsapi!, order_no: context.attempt?.order_no ?? '' }),
            onDone: [
              { guard: ({ event }) => event.output === 'ok', target: 'checking' },
              {
                guard: ({ event }) => event.output === 'cancel',
                target: '#pay.choosing',
                actions: [
                  'forgetAttempt',
                  { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
                  assign({ notice: '已取消支付' }),
                ],
              },
              {
                target: '#pay.failed',
                actions: {
                  type: 'fail',
                  params: { code: 'PAYMENT_FAILED', message: '微信支付未完成，请重试', retry: 'pay' },
                },
              },
            ],
            onError: {
              target: '#pay.failed',
              actions: {
                type: 'fail',
                params: { code: 'PAYMENT_FAILED', message: '无法调起微信支付，请重试', retry: 'pay' },
              },
            },
          },
        },
        ...orderPolling('checkPayment').states,
      },
    },
    starting: {
      description:
        'Paid: the server has told the device to start and waits for its acknowledgement (or refunds).',
      entry: 'resetPolls',
      ...orderPolling('checkStart'),
    },
    running: {
      type: 'final',
      entry: [
        { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
        { type: 'goToUsing', params: ({ context }) => ({ order_no: context.attempt?.order_no ?? null }) },
      ],
    },
    failed: {
      exit: assign({ failure: null }),
      on: {
        retry: [
          { guard: { type: 'retryFrom', params: 'load' }, target: 'loading' },
          { guard: { type: 'retryFrom', params: 'pay' }, target: 'paying' },
          { guard: { type: 'retryFrom', params: 'checkPayment' }, target: 'waitingForPayment.checking' },
          { guard: { type: 'retryFrom', params: 'checkStart' }, target: 'starting' },
        ],
        back: {
          description: 'Choose again with fresh data (balance, prices and device status may have changed).',
          target: 'loading',
          actions: [
            'forgetAttempt',
            { type: 'clearAttempt', params: ({ context }) => ({ device_id: context.device_id }) },
          ],
        },
        'recharge.open': {
          actions: {
            type: 'goToRecharge',
            params: ({ context }) => ({ merchant_id: context.data?.device.merchant_id ?? null }),
          },
        },
        'feedback.open': {
          actions: { type: 'goToFeedback', params: ({ context }) => ({ device_id: context.device_id }) },
        },
      },
    },
  },
});
