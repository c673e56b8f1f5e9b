/**
 * Asking the server again until it has a verdict, a bounded number of times: `checking` (one query; the caller says
 * what each answer means) and `pausing` (`pollInterval` between two queries). The pay machine polls the payment and
 * the device start with it, the recharge machine the booking of the money.
 *
 * The caller's setup names `pollsLeft` (below) among its guards and `pollInterval` among its delays, keeps
 * `polls`/`max_polls` in its context, and ends its `checking` answers with
 * `{ guard: 'pollsLeft', target: 'pausing' }` and then a give-up transition.
 */

/** The context a polling machine keeps: queries made, and the most it may make before it gives up. */
export interface PollingContext {
  polls: number;
  max_polls: number;
}

/** Between two queries; the whole wait is bounded by `max_polls`. */
export const POLL_INTERVAL_MS = 1500;

/** A query is left: the guard `pollsLeft`. */
export const pollsLeft = ({ context }: { context: PollingContext }) => context.polls < context.max_polls;

/** One more query made (entry of `checking`). */
export const countedPoll = (context: PollingContext) => ({ polls: context.polls + 1 });

/**
 * The two states of a bounded poll around the caller's `checking` state (typed by its own
 * `setup(...).createStateConfig`): spread `.states` where the poll sits, or use the whole as a compound state.
 */
export function pollingStates<TChecking extends object>(checking: TChecking) {
  return {
    initial: 'checking' as const,
    states: {
      checking,
      pausing: { after: { pollInterval: 'checking' as const } },
    },
  };
}
