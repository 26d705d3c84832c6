import type { Check } from '../../src/engine/check.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/check.ts';
import { describeLocation } from '../../src/engine/discover.ts';
import type { FoundTask } from '../../src/engine/fixtures.ts';
import { describe, documentedRefusal, isSuccess } from '../support.ts';

/** POST /v1/vms accepts a valid request and returns a task id that GET /v1/tasks/{id} knows. */
export const createReturnsTask: Check = {
  id: 'vms.create-returns-task',
  group: 'vms',
  clauses: ['VM-CREATE', 'TASK-ID-CREATE-VM', 'TASK-RETURNED', 'TASK-ASYNC'],
  level: 'must',
  why: { must: "the seed states that create VM returns a task id polled with GET /v1/tasks/{id}" },
  title: 'Creating a VM returns a task id that GET /v1/tasks/{id} resolves',
  async run(ctx) {
    const vm = await ctx.fixtures.vm();
    if (!isSuccess(vm.exchange)) {
      const refusal = documentedRefusal(vm.exchange);
      if (refusal) return skip(`the target refused the create with a documented reason (${refusal})`, 'rerun when the organization has quota and rate budget left');
      return fail(`a valid create request was refused: ${describe(vm.exchange)}`, [vm.exchange]);
    }
    let task: FoundTask;
    try {
      task = await ctx.fixtures.vmTask();
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      const tried = ((err as Unavailable & { tried?: FoundTask['tried'] }).tried ?? []).flatMap((t) => (t.confirmation ? [t.confirmation] : []));
      return fail(err.message, [vm.exchange, ...tried]);
    }
    ctx.observe('taskIdLocation', { ...task.location, declared: task.declared });
    return pass(`task id found at ${describeLocation(task.location)}${task.declared ? ' (declared)' : ' (discovered)'} and confirmed by ${describe(task.confirmation)}`, [vm.exchange, task.confirmation]);
  },
};
