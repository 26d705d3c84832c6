import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { waitsLong } from '../../src/engine/config/config.ts';
import { eventKeyOf } from '../../src/engine/events/events.ts';
import { isSuccess } from '../support.ts';

/** Real ms a receipt may be recorded late (event loop), so a gap may look that much shorter than it was. */
const TIMING_SLACK_MS = 50;
/** Share of a declared delay a retry may come early by (the target's own scheduler rounds). */
const EARLY_SHARE = 0.05;

/** Real ms a gap may look shorter than its declared delay (real ms at the run's time scale) before it is early. */
const toleranceMs = (delayMs: number) => delayMs * EARLY_SHARE + TIMING_SLACK_MS;

/**
 * Whether a delay can be timed at this time scale: its tolerance must be well inside it (under half), or every gap,
 * however early, passes; a delay the scale compresses further is not judged, and said so.
 */
const timedAt = (delaySeconds: number, scale: number) =>
  toleranceMs((delaySeconds * 1000) / scale) < (delaySeconds * 500) / scale;
/** Real seconds the quick profile waits for retries in all; the full profile waits for every declared one. */
const QUICK_RETRY_WAIT_SECONDS = 30;

/**
 * A delivery the receiver fails is delivered again on the declared schedule: the receiver answers 503 to as many
 * attempts as there are declared delays, and each retry must come, no earlier than its delay.
 */
export const retry: Check = {
  id: 'webhooks.retry',
  group: 'webhooks',
  clauses: ['EVENTS-WEBHOOK-JSON', 'U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: { declared: "the retry schedule is the overlay's declaration" },
  title: 'A failed delivery is retried on the declared schedule',
  async run(ctx) {
    const s = await ctx.events.events();
    const schedule = s.decl.retry;
    if (!schedule)
      return undeclared(
        'the overlay declares no retry schedule (x-webhook-retry)',
        'declare x-webhook-retry in --overlay'
      );
    if (!s.family || !isSuccess(s.family.exchange))
      return skip(
        'the backup-job endpoint could not be registered',
        'a webhook registration the target accepts (see webhooks.subscription)'
      );
    await ctx.events.eventBackup().catch(() => undefined);
    const first = await s.receiver.waitFor((d) => d.path === s.family!.path, ctx.events.deliveryTimeoutMs());
    if (!first)
      return skip(
        'no delivery reached the backup-job endpoint at all (see webhooks.subscription)',
        'deliveries that arrive (see webhooks.subscription)'
      );
    const idHeader = schedule.eventIdHeader;
    const key = eventKeyOf(first, idHeader);
    if (key === undefined)
      return skip(
        idHeader
          ? `deliveries carry no ${idHeader} header (declared event-id-header), so attempts of one event cannot be told apart`
          : 'deliveries carry no id (webhook-id, X-Event-Id or a body id), so attempts of one event cannot be told apart',
        'deliveries that carry an event id'
      );
    const scale = ctx.config.timeScale;
    // The retries awaited: all of them, or in the quick profile those that come within its wait.
    const budgetMs = waitsLong(ctx.config) ? Infinity : QUICK_RETRY_WAIT_SECONDS * 1000;
    let n = 0;
    for (let realMs = 0; n < schedule.delays.length && (realMs += (schedule.delays[n]! * 1000) / scale) <= budgetMs;)
      n++;
    if (n === 0)
      return skip(
        `the first declared retry comes ${schedule.delays[0]} s after a failure, longer than the quick profile waits (${QUICK_RETRY_WAIT_SECONDS} s)`,
        '--profile full (waits for every declared retry)'
      );
    const attemptsOf = () =>
      s.receiver.deliveries.filter((d) => d.path === s.family!.path && eventKeyOf(d, idHeader) === key);
    await s.receiver.waitFor(() => attemptsOf().length > n, ctx.events.deliveryTimeoutMs());
    const attempts = attemptsOf();
    const declared = `${schedule.delays.length} retries after ${schedule.delays.join(', ')} s`;
    if (attempts.length <= n) {
      return fail(
        `declared ${declared}: the receiver answered 503 to ${attempts.length} attempt${attempts.length === 1 ? '' : 's'} and no further attempt came within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s`,
        [],
        {
          attempts: attempts.map((a) => ({ answered: a.answered, receivedAt: new Date(a.receivedAt).toISOString() })),
        }
      );
    }
    const gaps = schedule.delays.slice(0, n).map((delay, i) => ({
      delay,
      gap: ((attempts[i + 1]!.receivedAt - attempts[i]!.receivedAt) / 1000) * scale,
      timed: timedAt(delay, scale),
    }));
    const early = gaps.filter(
      (g) => g.timed && g.gap < g.delay - (toleranceMs((g.delay * 1000) / scale) / 1000) * scale
    );
    const shown = gaps.map((g) => `${Math.round(g.gap)} s (declared ${g.delay})`).join(', ');
    if (early.length)
      return fail(`declared ${declared}, but retries came after ${shown}: ${early.length} came early`, [], { gaps });
    const untimed = gaps.filter((g) => !g.timed).length;
    const unawaited = schedule.delays.length - n;
    return pass(
      `${unawaited ? `the first ${n} of the ${schedule.delays.length}` : `each of the ${n}`} declared retries came, after ${shown}${untimed ? `; ${untimed} delays are too short to time at time scale ${scale}` : ''}${unawaited ? `; the last ${unawaited} not awaited in the quick profile (--profile full waits for them)` : ''}`
    );
  },
};
