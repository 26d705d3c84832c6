import type { CheckOutcome } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { isSuccess } from '../support.ts';
import type { LimitProbe } from '../../src/engine/limits/limit-probes.ts';
import { describeVerdict } from '../../src/engine/documented-limits/verdicts.js';

/** The outcome of a limit check from its probe: exact passes, stricter or looser fails, inconclusive skips. */
export function limitOutcome(
  probe: LimitProbe | undefined,
  inconclusiveHint = '',
  howToVerify = 'a burst that fits in half a window: a lower --time-scale, or a client closer to the target (--profile full settles a straddled window)',
  error?: Error
): CheckOutcome {
  // The probes could not run for a reason of the target's (no token for them): an error of the run, never a skip.
  if (!probe && error) throw error;
  if (!probe) return skip('the probe did not run', 'select the limits group');
  const message = describeVerdict(probe.limit, probe.what, probe.verdict);
  const exchanges = [
    probe.firstRejection,
    ...probe.bursts.flatMap((b) => b.exchanges.slice(-1)),
    probe.lateRefusal,
  ].filter((x) => x !== undefined);
  const details = {
    bursts: probe.bursts.map((b) => ({
      sent: b.exchanges.length,
      accepted: b.accepted,
      rejected: b.rejections.length,
      others: b.others.length,
      spanMs: b.spanMs,
    })),
    note: probe.note,
  };
  switch (probe.verdict.kind) {
    case 'exact':
      return pass(message, [], details);
    case 'inconclusive':
      return skip(message + inconclusiveHint, howToVerify);
    default:
      return fail(message, exchanges, details);
  }
}

/**
 * Whether another token of the same key was refused right after the probe's token was limited (its budget is not per
 * token): a write probe's second token met the same rejection, a read probe's was not served.
 */
export function refusedAcrossTokens(probe: LimitProbe | undefined, isWrite: boolean): boolean {
  if (!probe?.scope) return false;
  return isWrite ? probe.scope.response?.status === probe.firstRejection?.response?.status : !isSuccess(probe.scope);
}
