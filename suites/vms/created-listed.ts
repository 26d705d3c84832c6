import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';

/** A VM whose creation completed appears in GET /v1/vms exactly once. */
export const createdListed: Check = {
  id: 'vms.created-listed',
  group: 'vms',
  clauses: ['VM-LIST'],
  level: 'must',
  why: { must: 'the seed says GET /v1/vms lists the virtual machines; a VM whose create succeeded is one of them' },
  title: 'A VM whose create task completed appears in the list exactly once',
  async run(ctx) {
    const vm = await ctx.objects.acceptedVm();
    const { walk, matches, outcome } = await ctx.objects.createdVmInList();
    if (!outcome.state.terminal)
      return skip(
        'the create task did not complete (see tasks.reaches-terminal)',
        'a create task that completes within --task-timeout'
      );
    if (outcome.state.success === false)
      return skip(
        `the create task ended in ${outcome.state.value}; nothing to find in the list`,
        'a create that succeeds (check --image and --subnet-id)'
      );
    if (!walk.complete)
      return skip(
        `the list could not be walked to its end (${walk.stoppedBecause})`,
        'a list that can be walked to its end (see pagination.walk)'
      );
    if (matches.length !== 1) {
      // Not found in part of a long list is no finding: it may be ordered otherwise (not shown in the seed), or the tag
      // filter may have missed it (vms.tag-filter's finding).
      if (matches.length === 0 && walk.scope)
        return skip(
          `${vm.name} is not among the ${walk.items.length} VMs read (${walk.scope}), and the list is too long to walk whole`,
          '--profile certify (walks the whole list), or declare how tags are set (x-tags-field) so the run finds its VMs through the filter'
        );
      return fail(
        `the created VM ${vm.name} appears ${matches.length} times in ${walk.items.length} listed VMs${walk.scope ? ` (${walk.scope})` : ''}`,
        walk.pages.slice(-2),
        { name: vm.name, matches: matches.length }
      );
    }
    return pass(
      `${vm.name} appears once among ${walk.items.length} listed VMs${walk.scope ? ` (${walk.scope})` : ''} (id ${JSON.stringify(matches[0]!['id'])})`
    );
  },
};
