import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, failAt, skip, undeclared } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import { isSuccess } from '../support.ts';

/** After a backup runs, a backup-job event reaches the registered endpoint. */
export const backupEvent: Check = {
  id: 'webhooks.backup-event',
  group: 'webhooks',
  clauses: ['EVENTS-BACKUP-JOB', 'EVENTS-WEBHOOK-JSON'],
  level: 'declared',
  why: { declared: "the event names and the backup that raises them are the overlay's declarations" },
  title: 'A backup-job event is delivered after a backup',
  async run(ctx) {
    const s = await ctx.events.events();
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    const names = new Set(s.decl.events.filter((e) => e.family === 'backup-job').map((e) => e.name));
    if (names.size === 0)
      return undeclared(
        'the overlay declares no backup-job event',
        'declare a backup-job event under webhooks in --overlay'
      );
    const backup = await ctx.events.eventBackup();
    // Delivered once this backup was sent: an earlier event is another backup's (the run's backups go one at a time).
    const got = await s.receiver.waitFor(
      (d) => d.path === s.main.path && d.receivedAt >= backup.startedAt && names.has(eventTypeOf(d, s.decl) ?? ''),
      ctx.events.deliveryTimeoutMs()
    );
    if (!got) {
      const seen = s.receiver.deliveries
        .filter((d) => d.path === s.main.path)
        .map((d) => eventTypeOf(d, s.decl) ?? '?');
      return fail(
        `no ${[...names].join('/')} event reached ${s.main.url} within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s of the backup (seen there: ${seen.join(', ') || 'nothing'})`,
        [backup.exchange]
      );
    }
    ctx.observe('backupEventDelaySeconds', ((got.receivedAt - backup.startedAt) / 1000) * ctx.config.timeScale);
    const arrived = `${eventTypeOf(got, s.decl)} arrived ${Math.round(((got.receivedAt - backup.startedAt) / 1000) * ctx.config.timeScale)} target-seconds after the backup started`;
    // The event the overlay says follows the backup's outcome (x-emitted-on): a start event alone is not its end.
    const success = backup.outcome?.state.terminal ? backup.outcome.state.success : undefined;
    const outcome = success === true ? 'succeeded' : success === false ? 'failed' : undefined;
    const due = s.decl.events.filter(
      (e) =>
        e.family === 'backup-job' &&
        outcome &&
        e.emittedOn === outcome &&
        (e.emittedBy === undefined || e.emittedBy.includes('startBackup'))
    );
    if (due.length === 0) return pass(arrived);
    const dueNames = new Set(due.map((e) => e.name));
    const end = await s.receiver.waitFor(
      (d) => d.path === s.main.path && d.receivedAt >= backup.startedAt && dueNames.has(eventTypeOf(d, s.decl) ?? ''),
      ctx.events.deliveryTimeoutMs()
    );
    if (!end)
      return failAt(
        'declared',
        `the backup's task ${outcome}, and the overlay says ${[...dueNames].join('/')} is sent once it has (x-emitted-on: ${outcome}), but none reached ${s.main.url} within ${Math.round(ctx.events.deliveryTimeoutMs() / 1000)} s (${arrived})`,
        [backup.exchange, ...(backup.outcome?.polls.slice(-1) ?? [])]
      );
    return pass(`${arrived}; ${eventTypeOf(end, s.decl)} once its task had ${outcome}, as declared`);
  },
};
