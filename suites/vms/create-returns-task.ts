import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation } from '../../src/engine/target/discover.ts';
import { SIZE_LADDER, type FoundTask } from '../../src/engine/target/run-objects.ts';
import { describeExchange, documentedRefusal, isSuccess } from '../support.ts';

/** POST /v1/vms accepts a valid request and returns a task id that GET /v1/tasks/{id} knows. */
export const createReturnsTask: Check = {
  id: 'vms.create-returns-task',
  group: 'vms',
  clauses: ['VM-CREATE', 'TASK-ID-CREATE-VM', 'TASK-RETURNED', 'TASK-ASYNC'],
  level: 'must',
  why: {
    must: 'the seed states that create VM returns a task id polled with GET /v1/tasks/{id}, and a well-typed create never gets a 5xx (which sizes are valid is not shown: refusals of every size tried are not verified, not failed)',
  },
  title: 'Creating a VM returns a task id that GET /v1/tasks/{id} resolves',
  async run(ctx) {
    const vm = await ctx.objects.vm();
    if (!isSuccess(vm.exchange)) {
      const refusal = documentedRefusal(vm.exchange);
      if (refusal)
        return skip(
          `the target refused the create with a documented reason (${refusal})`,
          'rerun when the organization has quota and rate budget left'
        );
      const status = vm.exchange.response?.status;
      if (status === undefined || status >= 500)
        return fail(`a well-typed create request got ${describeExchange(vm.exchange)}`, vm.attempts);
      // The seed shows no ranges, nor which keys may create: a 4xx may be the target's rule, not a broken promise.
      return skip(
        `every create the suite tried was refused (${vm.attempts.map(describeExchange).join('; ')}); the seed shows which fields a create has, not which values a target accepts`,
        `--image and --subnet-id valid on the target, a key whose owner may create VMs, and a target that accepts one of the sizes tried (${SIZE_LADDER.map((z) => `${z.vcpus} vCPU/${z.memory_gb} GB/${z.system_disk_gb} GB disk`).join(', ')})`
      );
    }
    let task: FoundTask;
    try {
      task = await ctx.objects.vmTask();
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      const tried = ((err as Unavailable & { tried?: FoundTask['tried'] }).tried ?? []).flatMap((t) =>
        t.confirmation ? [t.confirmation] : []
      );
      return fail(err.message, [vm.exchange, ...tried]);
    }
    ctx.observe('taskIdLocation', { ...task.location, declared: task.declared });
    ctx.observe('createStatus', vm.exchange.response!.status);
    // Which sizes were accepted (the smallest tried first): ranges are the target's choice.
    ctx.observe('createSizes', {
      vcpus: vm.body['vcpus'],
      memory_gb: vm.body['memory_gb'],
      system_disk_gb: vm.body['system_disk_gb'],
      refusedFirst: vm.refusedSizes,
    });
    return pass(
      `task id found at ${describeLocation(task.location)}${task.declared ? ' (declared)' : ' (discovered)'} and confirmed by ${describeExchange(task.confirmation)}`,
      [vm.exchange, task.confirmation]
    );
  },
};
