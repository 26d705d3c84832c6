import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation } from '../../src/engine/target/discover.ts';
import { describeExchange, isSuccess, restoreOnVm } from '../support.ts';
import { startOwnBackup } from '../own-backup.ts';

/** Restore backup returns a task id (seed §4), polled to a terminal state. */
export const restoreTask: Check = {
  id: 'backups.restore-task',
  group: 'backups',
  clauses: ['TASK-ID-RESTORE', 'TASK-RETURNED', 'TASK-ASYNC'],
  level: 'must',
  why: { must: 'the seed states that restore backup returns a task id (the operation itself must be declared)' },
  title: 'Restoring a backup returns a task id that completes',
  async run(ctx) {
    const restore = ctx.declarations.restoreBackup;
    if (!restore)
      return skip(
        'the restore operation is not shown in the seed; declare it in an overlay (x-restores: startBackup)',
        'declare the restore operation (x-restores: startBackup) in --overlay'
      );
    const backup = await startOwnBackup(ctx, { description: 'restore', note: '', what: 'the backup to restore' });
    if (!('id' in backup))
      return skip(isSuccess(backup.started) ? backup.why : `${backup.why}; see backups.start`, backup.howToVerify);
    const { started, id: backupId } = backup;
    try {
      const backupTask = await ctx.objects.findTask(started, ctx.declarations.taskIdOnStartBackup);
      await ctx.objects.pollTask(backupTask.id);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
    const ex = await restoreOnVm(ctx, backupId);
    if (!isSuccess(ex)) return fail(`restoring backup ${backupId} was refused: ${describeExchange(ex)}`, [ex]);
    let task;
    try {
      task = await ctx.objects.findTask(ex, restore.taskId);
    } catch (err) {
      if (err instanceof Unavailable) return fail(`restore returned no task id: ${err.message}`, [ex]);
      throw err;
    }
    const outcome = await ctx.objects.pollTask(task.id);
    if (!outcome.state.terminal)
      return fail(
        `the restore task ${task.id} did not complete (last ${outcome.state.field}=${outcome.state.value ?? '?'})`,
        outcome.polls.slice(-1)
      );
    return pass(
      `restore returned task ${task.id} at ${describeLocation(task.location)}, which reached ${outcome.state.field}=${outcome.state.value}`
    );
  },
};
