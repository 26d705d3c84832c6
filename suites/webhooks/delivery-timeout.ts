import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared } from '../../src/engine/run/check.ts';
import { waitsLong } from '../../src/engine/config/config.ts';
import { eventKeyOf } from '../../src/engine/events/events.ts';
import { startOwnBackup } from '../own-backup.ts';
import { isSuccess } from '../support.ts';

/** Real ms the receiver holds its answer beyond the declared timeout (at least; a fifth of the timeout when longer). */
const HOLD_MARGIN_MS = 2000;
/** Real seconds the quick profile waits for the retry after the held answer; the full profile waits as declared. */
const QUICK_RETRY_WAIT_SECONDS = 30;

/**
 * The delivery timeout: an attempt the receiver answers only after the declared timeout-seconds
 * counts as failed, so the event is attempted again. The check registers an endpoint of its own for the backup-job
 * events, starts a backup of its own, and holds its answer to the first attempt of one event of that backup past the
 * timeout (one only: a sender that delivers one event at a time would queue the retry behind others held).
 */
export const deliveryTimeout: Check = {
  id: 'webhooks.delivery-timeout',
  group: 'webhooks',
  clauses: ['U-WEBHOOK-REGISTRATION'],
  level: 'declared',
  why: {
    declared: 'how long a delivery may take is not shown; the overlay declares it (timeout-seconds in x-webhook-retry)',
  },
  title: 'A delivery answered after the declared timeout counts as failed and is attempted again',
  async run(ctx) {
    const s = await ctx.events.events();
    const retry = s.decl.retry;
    if (!retry?.timeoutSeconds)
      return undeclared(
        'the overlay declares no delivery timeout (timeout-seconds in x-webhook-retry)',
        'timeout-seconds in x-webhook-retry, in --overlay'
      );
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    const retryMs = (retry.delays[0]! * 1000) / ctx.config.timeScale;
    if (!waitsLong(ctx.config) && retryMs > QUICK_RETRY_WAIT_SECONDS * 1000)
      return skip(
        `the first declared retry comes ${retry.delays[0]} s after a failure, longer than the quick profile waits (${QUICK_RETRY_WAIT_SECONDS} s)`,
        '--profile full (waits for every declared retry)'
      );
    const holdMs = Math.max(retry.timeoutSeconds * 1000 + HOLD_MARGIN_MS, retry.timeoutSeconds * 1200);
    const slow = await ctx.events.registerSlow('slow', ctx.checkId);
    if (!slow)
      return skip(
        'the overlay subscribes to no backup-job event, which the check provokes',
        'a backup-job event declared (x-event-family: backup-job)'
      );
    if (!isSuccess(slow.exchange))
      return skip(
        'the registration of the late-answering endpoint was refused (see webhooks.registration)',
        'a webhook registration the target accepts'
      );
    const backup = await startOwnBackup(ctx, {
      description: 'delivery timeout',
      note: 'one of its events answered late',
      what: 'the backup',
    });
    if (!('id' in backup)) return skip(backup.why, backup.howToVerify);
    // One event of the check's own backup is held, the first to arrive once its id is known; nothing else is.
    const backupId = backup.id;
    slow.holdFirst(holdMs, (raw) => raw.toString('utf8').includes(backupId));
    const held = (d: { path: string; heldMs?: number }) => d.path === slow.path && d.heldMs !== undefined;
    const first = await s.receiver.waitFor(
      held,
      ctx.events.deliveryTimeoutMs(),
      "an event of the check's backup",
      ctx.checkId
    );
    if (!first)
      return skip(
        `no event of backup ${backup.id} reached the late-answering endpoint after its start was answered (see webhooks.backup-event)`,
        'backup-job events that arrive (see webhooks.backup-event)'
      );
    const idHeader = retry.eventIdHeader;
    const key = eventKeyOf(first, idHeader);
    if (key === undefined)
      return skip(
        idHeader
          ? `deliveries carry no ${idHeader} header (declared event-id-header), so attempts of one event cannot be told apart`
          : 'deliveries carry no id (webhook-id, X-Event-Id or a body id), so attempts of one event cannot be told apart',
        'deliveries that carry an event id'
      );
    // Attempts of the event: its id, or the very same body (tying attempts by the id is webhooks.retry's to judge).
    const attempts = () =>
      s.receiver.deliveries.filter(
        (d) => d.path === slow.path && (eventKeyOf(d, idHeader) === key || d.raw.equals(first.raw))
      );
    const waitMs = holdMs + retryMs + ctx.events.deliveryTimeoutMs();
    await s.receiver.waitFor(
      () => attempts().length >= 2,
      waitMs,
      'the event attempted again after its late answer',
      ctx.checkId
    );
    const [a, b] = attempts();
    if (!b) {
      return fail(
        `the receiver answered the first attempt of event ${key} after ${holdMs / 1000} s, past the declared timeout of ${retry.timeoutSeconds} s, and no further attempt came within ${Math.round(waitMs / 1000)} s: the late answer was taken as a delivery (or the target retries nothing; see webhooks.retry)`,
        [slow.exchange, backup.started],
        {
          attempts: attempts().map((d) => ({
            receivedAt: new Date(d.receivedAt).toISOString(),
            heldMs: d.heldMs ?? 0,
          })),
        }
      );
    }
    return pass(
      `the first attempt of event ${key}, answered after ${holdMs / 1000} s (declared timeout ${retry.timeoutSeconds} s), was attempted again ${((b.receivedAt - a!.receivedAt) / 1000).toFixed(1)} s after it arrived`
    );
  },
};
