// A backup the check starts for itself, and where a start answer names it: shared by the checks that restore, delete
// or read back a backup of their own, so each finds the id the same way (the declared link first).
import type { CheckContext } from '../src/engine/run/context.ts';
import type { Exchange } from '../src/engine/transport/exchange.ts';
import { readLocation } from '../src/engine/target/discover.ts';
import { backupOnVm, describeExchange, isSuccess, ownDescription } from './support.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The backup's id in a start answer: backup_id / backupId, or the id of an object under a key naming a backup. */
export function backupIdOf(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  for (const [k, v] of Object.entries(json)) {
    if (/^backup_?id$/i.test(k) && typeof v === 'string') return v;
    if (/backup/i.test(k) && isRecord(v) && typeof v['id'] === 'string') return v['id'];
  }
  return undefined;
}

type OwnBackup = { started: Exchange; id: string } | { started: Exchange; why: string; howToVerify: string };

/**
 * Starts a backup of the run's VM, records it in the ledger as the check's own and reads its id: from the declared
 * location (a link to getBackup), else from a backup-named field. `what` names the backup in the reason it is missing.
 */
export async function startOwnBackup(
  ctx: CheckContext,
  o: { description: string; note: string; what: string }
): Promise<OwnBackup> {
  const vmId = await ctx.objects.createdVmId();
  const started = await backupOnVm(ctx, vmId, { json: { description: ownDescription(ctx, o.description) } });
  if (!isSuccess(started))
    return {
      started,
      why: `${o.what} was refused (${describeExchange(started)})`,
      howToVerify: 'a backup the target starts (see backups.start)',
    };
  ctx.ledger.record(
    { kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}${o.note ? `, ${o.note}` : ''}` },
    started
  );
  const declared =
    ctx.declarations.backupIdOnStartBackup && readLocation(started, ctx.declarations.backupIdOnStartBackup);
  const id = typeof declared === 'string' && declared !== '' ? declared : backupIdOf(started.response?.json);
  if (!id)
    return {
      started,
      why: 'the backup-start response names no backup id the suite can find',
      howToVerify: 'declare where the backup id is (a link to getBackup on the backup response) in --overlay',
    };
  return { started, id };
}
