import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, undeclared, Unavailable } from '../../src/engine/run/check.ts';
import { eventTypeOf } from '../../src/engine/events/events.ts';
import { startOwnBackup } from '../own-backup.ts';
import { describeExchange, isSuccess, restoreOnVm } from '../support.ts';

/**
 * Which operation raises which event: where the overlay lists the restore among an event's
 * emitters (x-emitted-by), restoring a backup delivers that event. The backup is the check's own, so its events are
 * counted apart from every other: one for the backup where the backup start raises the same event, one for the restore.
 * A backup start's and an alarm's events are webhooks.backup-event's and alarms.fires'.
 */
export const declaredEmitters: Check = {
  id: 'webhooks.declared-emitters',
  group: 'webhooks',
  clauses: ['U-EVENT-EMITTERS'],
  level: 'declared',
  why: {
    declared:
      'which operation emits which event is not shown; the overlay lists the emitters of each event (x-emitted-by)',
  },
  title: 'Restoring a backup delivers the events the overlay says a restore raises',
  async run(ctx) {
    const restore = ctx.declarations.restoreBackup;
    const decl = ctx.declarations.webhooks;
    const byRestore = new Set(
      decl?.events.filter((e) => restore?.operationId && e.emittedBy?.includes(restore.operationId)).map((e) => e.name)
    );
    if (!decl || !restore || byRestore.size === 0)
      return undeclared(
        "the overlay lists the restore among no event's emitters (x-emitted-by)",
        'x-emitted-by on the events a restore raises, with the restore operation declared (x-restores)'
      );
    const s = await ctx.events.events();
    if (!isSuccess(s.main.exchange))
      return skip(
        'registration failed (see webhooks.registration)',
        'a webhook registration the target accepts (see webhooks.registration)'
      );
    // A list of emitters is the whole list: an event that does not name the backup start is the restore's alone.
    const byStart = new Set(decl.events.filter((e) => e.emittedBy?.includes('startBackup')).map((e) => e.name));
    // The check's own backup, polled to its end, then restored and polled to its end.
    const backup = await startOwnBackup(ctx, {
      description: 'emitters',
      note: 'to restore',
      what: 'the backup to restore',
    });
    if (!('id' in backup))
      return skip(isSuccess(backup.started) ? backup.why : `${backup.why}; see backups.start`, backup.howToVerify);
    const { started, id: backupId } = backup;
    try {
      await ctx.objects.pollTask((await ctx.objects.findTask(started, ctx.declarations.taskIdOnStartBackup)).id);
      const restored = await restoreOnVm(ctx, backupId);
      if (!isSuccess(restored))
        return skip(
          `the restore was refused (${describeExchange(restored)}); see backups.restore-task`,
          'a restore the target accepts (see backups.restore-task)'
        );
      await ctx.objects.pollTask((await ctx.objects.findTask(restored, restore.taskId)).id);
    } catch (err) {
      if (err instanceof Unavailable) return skip(err.message, err.howToVerify);
      throw err;
    }
    // Events of the declared names that name this backup: the backup's own (where a start raises it too) and the restore's.
    const expected = [...byRestore].some((n) => byStart.has(n)) ? 2 : 1;
    const ours = () =>
      s.receiver.deliveries.filter(
        (d) =>
          d.path === s.main.path &&
          byRestore.has(eventTypeOf(d, s.decl) ?? '') &&
          d.raw.toString('utf8').includes(backupId)
      );
    const distinct = () => new Set(ours().map((d) => d.raw.toString('utf8'))).size;
    await s.receiver.waitFor(() => distinct() >= expected, ctx.events.deliveryTimeoutMs());
    const got = distinct();
    if (got < expected)
      return fail(
        `the overlay lists ${restore.operationId} among the emitters of ${[...byRestore].join('/')}, but after backup ${backupId} was restored ${got} such event${got === 1 ? '' : 's'} naming it reached ${s.main.url} (${expected} due: ${expected === 2 ? "the backup's own and the restore's" : "the restore's"})`,
        [started]
      );
    return pass(
      `restoring backup ${backupId} delivered ${[...byRestore].join('/')} (${got} events naming it, the restore's included)`
    );
  },
};
