import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { absentId, describeExchange, ownDescription } from '../support.ts';

/** A backup of a VM that does not exist cannot start: the target refuses it with a 4xx. */
export const missingVm: Check = {
  id: 'backups.missing-vm',
  group: 'backups',
  clauses: ['BACKUP-CREATE'],
  level: 'must',
  why: {
    must: 'the seed says the call starts a backup of the VM with the given id: none can start for a VM that does not exist',
  },
  title: 'A backup of a VM that does not exist is refused',
  async run(ctx) {
    const ex = await ctx.call({
      method: 'POST',
      path: `/v1/vms/${absentId(ctx, 'vm')}/backups`,
      json: { description: ownDescription(ctx, 'absent-vm') },
    });
    const status = ex.response?.status;
    if (status === undefined || status < 400 || status >= 500) {
      if (status !== undefined && status < 300)
        ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: 'of a VM that does not exist' }, ex);
      return fail(`a backup of a VM that does not exist answered ${describeExchange(ex)}`, [ex]);
    }
    return pass(`refused: ${describeExchange(ex)}`);
  },
};
