import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation, readLocation } from '../../src/engine/target/discover.ts';
import { describe, isSuccess } from '../support.ts';

/** Where a backup-start response names the backup: a backup-named string field (or the declared link). */
export function backupIdOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  for (const k of ['backup_id', 'backupId']) if (typeof o[k] === 'string') return o[k] as string;
  const nested = o['backup'];
  if (nested && typeof nested === 'object' && typeof (nested as Record<string, unknown>)['id'] === 'string') return (nested as Record<string, string>)['id'];
  return undefined;
}

/** Restore backup returns a task id (seed §4), polled to a terminal state. */
export const restoreTask: Check = {
  id: 'backups.restore-task',
  group: 'backups',
  clauses: ['TASK-ID-RESTORE', 'TASK-RETURNED', 'TASK-ASYNC'],
  level: 'must',
  why: { must: "the seed states that restore backup returns a task id (the operation itself must be declared)" },
  title: 'Restoring a backup returns a task id that completes',
  async run(ctx) {
    const restore = ctx.declarations.restoreBackup;
    if (!restore) return skip('the restore operation is not shown in the seed; declare it in an overlay (x-restores: startBackup)', 'declare the restore operation (x-restores: startBackup) in --overlay');
    const vmId = await ctx.fixtures.createdVmId();
    const started = await ctx.call({ method: 'POST', path: `/v1/vms/${encodeURIComponent(vmId)}/backups`, json: { description: `restore ${ctx.config.runId}` } });
    if (!isSuccess(started)) return skip(`the backup to restore was refused (${describe(started)}); see backups.start`, 'a backup the target starts (see backups.start)');
    ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}` }, started);
    const declaredId = ctx.declarations.backupIdOnStartBackup && readLocation(started, ctx.declarations.backupIdOnStartBackup);
    const backupId = typeof declaredId === 'string' && declaredId !== '' ? declaredId : backupIdOf(started.response?.json);
    if (!backupId) return skip('the backup-start response names no backup id the suite can find', 'declare where the backup id is (a link to getBackup on the backup response) in --overlay');
    try {
      const backupTask = await ctx.fixtures.findTask(started, ctx.declarations.taskIdOnStartBackup);
      await ctx.fixtures.pollTask(backupTask.id);
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
    }
    const ex = await ctx.call({ method: restore.method, path: restore.path.replace('{id}', encodeURIComponent(backupId)), json: {} });
    if (!isSuccess(ex)) return fail(`restoring backup ${backupId} was refused: ${describe(ex)}`, [ex]);
    let task;
    try {
      task = await ctx.fixtures.findTask(ex, restore.taskId);
    } catch (err) {
      if (err instanceof Unavailable) return fail(`restore returned no task id: ${err.message}`, [ex]);
      throw err;
    }
    const outcome = await ctx.fixtures.pollTask(task.id);
    if (!outcome.state.terminal) return fail(`the restore task ${task.id} did not complete (last ${outcome.state.field}=${outcome.state.value ?? '?'})`, outcome.polls.slice(-1));
    return pass(`restore returned task ${task.id} at ${describeLocation(task.location)}, which reached ${outcome.state.field}=${outcome.state.value}`);
  },
};
