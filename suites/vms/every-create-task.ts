import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation, readLocation, taskIdIn } from '../../src/engine/target/discover.ts';
import { describeExchange, isSuccess, pathOf } from '../support.ts';

/** Sizes whose answers are judged at most (each a poll where the answer hides its task elsewhere). */
const MAX_SIZES = 8;

/** The sizes a create asked for, as one key (vcpus/memory_gb/system_disk_gb); undefined for a body without them. */
export function sizesOf(ex: Exchange): string | undefined {
  let body: unknown;
  try {
    body = ex.request.body ? JSON.parse(ex.request.body) : undefined;
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const sizes = [b['vcpus'], b['memory_gb'], b['system_disk_gb']];
  return sizes.every((n) => typeof n === 'number') ? sizes.join('/') : undefined;
}

/**
 * Create VM returns a task id (seed §1, §2) whatever the VM's sizes: a target that serves some shapes from a warm pool
 * may answer them with a running VM and no task. Every size the run's own creates were accepted with (the second
 * values, the generated ones) is judged from its answer: the task id where the run VM's answer had it, else one a
 * poll confirms. vms.create-returns-task judges the run VM's own size.
 */
export const everyCreateTask: Check = {
  id: 'vms.every-create-task',
  group: 'vms',
  clauses: ['TASK-ID-CREATE-VM', 'TASK-RETURNED'],
  level: 'must',
  why: { must: 'the seed says create VM returns a task id, for every VM it creates, whatever its sizes' },
  title: 'Every accepted create, of every size the run sent, names its task',
  reviewsLog: true,
  async run(ctx) {
    // The run VM's task, found once for the run (vms.create-returns-task judges it): no other check's finding is read.
    const location =
      ctx.declarations.taskIdOnCreateVm ??
      (
        await ctx.objects.vmTask().catch((err: unknown) => {
          if (err instanceof Unavailable) return undefined;
          throw err;
        })
      )?.location;
    if (!location)
      return skip(
        "the run VM's create named no task the run could find (vms.create-returns-task says why), so no other answer can be compared with it",
        'a create the target accepts with a task id (vms.create-returns-task)'
      );
    const vm = await ctx.objects.vm();
    const judged = sizesOf(vm.exchange);
    const bySize = new Map<string, Exchange>();
    for (const ex of ctx.log) {
      if (ex.request.method !== 'POST' || pathOf(ex) !== '/v1/vms' || ex.caller !== 'primary' || !isSuccess(ex))
        continue;
      const sizes = sizesOf(ex);
      if (sizes && sizes !== judged && !bySize.has(sizes)) bySize.set(sizes, ex);
    }
    if (bySize.size === 0)
      return skip(
        `every create the target accepted had the run VM's sizes (${judged ?? 'unknown'}), judged by vms.create-returns-task`,
        'creates of other sizes the target accepts (vms.values-read-back and the generated creates send them)'
      );
    const sizes = [...bySize].slice(0, MAX_SIZES);
    const missing: Array<{ sizes: string; ex: Exchange; why: string }> = [];
    let elsewhere = 0;
    for (const [key, ex] of sizes) {
      const id = taskIdIn(readLocation(ex, location));
      if (typeof id === 'string' && id !== '') continue;
      try {
        await ctx.objects.findTask(ex);
        elsewhere++;
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        missing.push({ sizes: key, ex, why: err.message });
      }
    }
    if (missing.length) {
      const first = missing[0]!;
      return fail(
        `${missing.length} of ${sizes.length} sizes accepted without a task: a create of ${first.sizes} (vcpus/memory_gb/system_disk_gb) answered ${describeExchange(first.ex)} with nothing at ${describeLocation(location)} (${first.why})`,
        missing.map((m) => m.ex)
      );
    }
    return pass(
      `creates of ${sizes.length} other sizes (${sizes.map(([k]) => k).join(', ')}) each named a task${elsewhere ? `, ${elsewhere} of them elsewhere than ${describeLocation(location)}` : ` at ${describeLocation(location)}`}`
    );
  },
};
