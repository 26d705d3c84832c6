import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { backupOnVm, describeExchange, documentedRefusal, isSuccess, ownDescription } from '../support.ts';

/** POST /v1/vms/{id}/backups with a description starts a backup of a VM the run created. */
export const startBackup: Check = {
  id: 'backups.start',
  group: 'backups',
  clauses: ['BACKUP-CREATE', 'BACKUP-CREATE-FIELDS'],
  level: 'must',
  why: {
    must: "the seed states POST /v1/vms/{id}/backups with a description (a 409 for the VM's state is not verified: states and transitions are not shown)",
  },
  title: 'Starting a backup of a VM with a description is accepted',
  async run(ctx) {
    // Only a VM this run created: the suite never writes to resources it did not make.
    const vmId = await ctx.objects.createdVmId();
    const ex = await backupOnVm(ctx, vmId, { json: { description: ownDescription(ctx, 'start') } });
    if (!isSuccess(ex)) {
      const refusal = documentedRefusal(ex);
      if (refusal)
        return skip(
          `the backup was refused with a documented reason (${refusal})`,
          'rerun when the organization has quota and rate budget left'
        );
      // States and transitions are not shown: a target may back up only VMs in some state (stopped, say).
      if (ex.response?.status === 409)
        return skip(
          `the backup was refused for the VM's state: ${describeExchange(ex)}; which states allow a backup is not shown`,
          'a target that backs up a running VM, or a run against a VM in a state the target backs up'
        );
      return fail(`starting a backup was refused: ${describeExchange(ex)}`, [ex]);
    }
    ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vmId}` }, ex);
    ctx.observe('backupStartStatus', ex.response!.status);
    return pass(`backup started: ${describeExchange(ex)}`, [ex]);
  },
};
