import { taskTimeoutRealMs } from '../../src/engine/config/config.ts';
import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { describeExchange, documentedRefusal, isSuccess } from '../support.ts';

/** Target-seconds between reads of the second organization's list while its VM is being made. */
const LIST_POLL_SECONDS = 2;

/**
 * POST /v1/vms creates the VM for whoever asks (seed §4), the second organization's key included: a valid create with
 * its key (and a subnet of its own, --subnet-id-b) is accepted, and the VM appears in that organization's list.
 */
export const createSecondOrganization: Check = {
  id: 'vms.create-second-organization',
  group: 'vms',
  clauses: ['VM-CREATE', 'VM-LIST'],
  level: 'must',
  why: {
    must: "the seed says POST /v1/vms creates a virtual machine and GET /v1/vms lists the caller's: for every organization, not only the first",
  },
  title: "A VM the second organization's key creates appears in that organization's list",
  async run(ctx) {
    if (!ctx.tokens.has('second')) return skip('needs --api-key-b (a key of a second organization)', '--api-key-b KEY');
    if (!ctx.config.subnetIdB)
      return skip(
        'needs --subnet-id-b (a subnet of the second organization: a VM attaches to a subnet of its own organization)',
        '--subnet-id-b ID'
      );
    const { body } = ctx.objects.vmCreateBody('org-b');
    body['subnet_id'] = ctx.config.subnetIdB;
    const name = String(body['name']);
    const created = await ctx.call({ as: 'second', method: 'POST', path: '/v1/vms', json: body });
    const status = created.response?.status;
    if (status === undefined || status >= 500)
      return fail(`a valid create with the second organization's key answered ${describeExchange(created)}`, [created]);
    if (!isSuccess(created)) {
      const refusal = documentedRefusal(created);
      return skip(
        `the second organization's create was refused (${describeExchange(created)}${refusal ? `: ${refusal}` : ''})`,
        refusal
          ? 'an organization with room for one more VM'
          : 'check --subnet-id-b (a subnet of the second organization) and --image'
      );
    }
    const entry = ctx.ledger.record(
      {
        kind: 'vm',
        name,
        createdBy: ctx.checkId,
        owner: 'second',
        note: 'made with --api-key-b in the second organization',
      },
      created
    );
    // Listed at once on most targets; some list a VM only once its task has ended: read again until the task timeout.
    const deadline = Date.now() + taskTimeoutRealMs(ctx.config);
    let pages: Exchange[] = [];
    for (;;) {
      // The second organization's own list, walked whole within the bound (the primary's list says nothing of its size).
      const walk = await ctx.objects.walkAs('second', 100);
      pages = walk.pages;
      const listed = walk.items.find((item) => item['name'] === name);
      if (listed) {
        // Listed is what this check asks; an id of another type is vms.list-shape's to judge.
        const id = String(listed['id']);
        entry.id = id;
        // Deleted with its owner's key now, where a delete is declared (cleanup would do the same later).
        const remove = ctx.declarations.deleteVm;
        if (
          remove &&
          isSuccess(
            await ctx.call({
              as: 'second',
              method: remove.method,
              path: remove.path.replace(/\{[^}]+\}/, encodeURIComponent(id)),
            })
          )
        )
          entry.cleanup = 'deleted';
        return pass(
          `a create with the second organization's key was accepted (${describeExchange(created)}) and the VM is in that organization's list (id ${id})`
        );
      }
      if (!walk.complete || walk.capped)
        return skip(
          `the second organization's list could not be read whole (${walk.stoppedBecause}), so its new VM cannot be looked for`,
          'a second organization whose VM list fits in a bounded walk'
        );
      if (Date.now() >= deadline) break;
      await ctx.sleepTarget(LIST_POLL_SECONDS);
    }
    return fail(
      `a create with the second organization's key was accepted (${describeExchange(created)}), but ${name} is not in that organization's list after ${ctx.config.taskTimeoutSeconds} s (--task-timeout)`,
      [created, ...pages.slice(-1)]
    );
  },
};
