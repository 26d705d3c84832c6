// webhooks.unregistered on a busy target or machine (CI under load): a delivery the target sent before the deletion
// and that arrives after it is not a delivery to a deleted endpoint; one about what was made afterwards is.
import { describe, expect, it } from 'vitest';
import { idsIn, strayDeliveries } from '../../suites/webhooks/unregistered.ts';

const live = new Set(['/cc-run/main']);
const deleted = { path: '/cc-run/deleted', deletedAt: 10_000 };
const delivery = (path: string, receivedAt: number, body: object) => ({
  path,
  receivedAt,
  raw: Buffer.from(JSON.stringify(body)),
});

describe('deliveries to a deleted or never-registered endpoint', () => {
  const cases: Array<[string, ReturnType<typeof delivery>, boolean]> = [
    [
      'to the main registration',
      delivery('/cc-run/main', 20_000, { type: 'backup.completed', backup_id: 'bk-after' }),
      false,
    ],
    [
      'to the deleted one before its deletion',
      delivery('/cc-run/deleted', 9_000, { type: 'vm.created', vm_id: 'vm-1' }),
      false,
    ],
    [
      'to the deleted one just after, about an object made before (in flight)',
      delivery('/cc-run/deleted', 10_400, { type: 'vm.created', vm_id: 'vm-1' }),
      false,
    ],
    [
      'to the deleted one just after, about the backup started after the deletion',
      delivery('/cc-run/deleted', 10_400, { type: 'backup.completed', backup_id: 'bk-after' }),
      true,
    ],
    [
      'to the deleted one long after, about anything',
      delivery('/cc-run/deleted', 40_000, { type: 'vm.created', vm_id: 'vm-1' }),
      true,
    ],
    ['to a path never registered', delivery('/cc-run/other', 1_000, { type: 'vm.created' }), true],
  ];
  for (const [what, d, stray] of cases) {
    it(`${what}: ${stray ? 'stray' : 'not stray'}`, () => {
      expect(
        strayDeliveries([d], live, deleted, idsIn({ backup_id: 'bk-after', task_id: 'task-after', status: 'pending' }))
          .length
      ).toBe(stray ? 1 : 0);
    });
  }
  it('takes the ids an answer hands out, not its other strings', () => {
    expect(
      idsIn({ backup_id: 'bk-1', status: 'pending', operation: { name: 'operations/op-1', id: 'op-1' }, vmId: 'vm-9' })
    ).toEqual(['bk-1', 'op-1', 'vm-9']);
  });
});
