import type { Check } from '../../src/engine/run/check.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { RequestTask } from '../../src/engine/target/request-tasks.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { describeLocation } from '../../src/engine/target/discover.ts';
import { inParallel } from '../../src/engine/transport/in-parallel.ts';
import { acceptedRequests, groupOf, withinBound, type LongRunningRequest } from '../accepted-requests.ts';
import { describeExchange } from '../support.ts';

/** Tasks asked about at once (each at most a poll; the pacer holds the token's read budget). */
const IN_FLIGHT = 4;

type Judged = { req: LongRunningRequest; task: RequestTask };

/** Per class group, how its creates fared: "vcpus:large (2): no task" and the like. */
function byGroup(judged: readonly Judged[], kind: RequestTask['kind']): Map<string, Judged[]> {
  const out = new Map<string, Judged[]>();
  for (const j of judged.filter((x) => x.task.kind === kind))
    out.set(groupOf(j.req, false), [...(out.get(groupOf(j.req, false)) ?? []), j]);
  return out;
}

const whyOf = (t: RequestTask) => (t.kind === 'confirmed' ? '' : t.why);

/**
 * Create VM returns a task id (seed §1, §2, §4) for every VM it creates: whichever check sent the create (the fuzz, the
 * type sweep, the value classes, the read-back, the stateful sequences, certify's population, the quota probe) and
 * whatever classes it exercised (sizes, names, a null or left-out field, the second organization's key). A target that
 * serves some shapes from a warm pool may answer them with a running VM and no task. Each accepted create's task is
 * confirmed by a poll (the run's own earlier poll where there was one); a poll that does not know the id is a finding.
 * vms.create-returns-task judges the run VM's create; tasks.every-task-completes then polls each task to its end.
 */
export const everyCreateTask: Check = {
  id: 'vms.every-create-task',
  group: 'vms',
  clauses: ['TASK-ID-CREATE-VM', 'TASK-RETURNED', 'ID-OPAQUE-STRING'],
  level: 'must',
  why: {
    must: 'the seed says create VM returns a task id, polled at GET /v1/tasks/{id}, and identifiers are opaque strings: for every VM it creates, whichever check asked and whatever its values',
  },
  title: 'Every accepted create, whichever check sent it and whatever its input classes, names a task a poll confirms',
  reviewsLog: true,
  async run(ctx) {
    // The run VM's task, found once for the run (vms.create-returns-task judges it): no other check's finding is read.
    const found = await ctx.objects.vmTask().catch((err: unknown) => {
      if (err instanceof Unavailable) return undefined;
      throw err;
    });
    if (!found && !ctx.declarations.taskIdOnCreateVm)
      return skip(
        "the run VM's create named no task the run could find (vms.create-returns-task says why), so no other answer can be compared with it",
        'a create the target accepts with a task id (vms.create-returns-task)'
      );
    const runVm = (await ctx.objects.vm()).exchange.seq;
    const requests = (await acceptedRequests(ctx, ['createVm'])).filter((r) => r.exchange.seq !== runVm);
    if (requests.length === 0)
      return skip(
        "the target accepted no create but the run VM's (judged by vms.create-returns-task)",
        'creates the target accepts (the value classes, the type sweep and the generated creates send them)'
      );
    const { judged: chosen, left } = withinBound(ctx, requests);
    const judged: Judged[] = await inParallel(chosen, IN_FLIGHT, async (req) => ({
      req,
      task: await ctx.objects.taskOfRequest(req, ctx.log),
    }));
    const failing = byGroup(judged, 'finding');
    const groups = new Set(judged.map((j) => groupOf(j.req, false)));
    const leftNote = left ? `; ${left} more accepted creates not judged (at most ${chosen.length} a run)` : '';
    if (failing.size) {
      const lines = [...failing].map(([g, js]) => `${g} (${js.length}): ${whyOf(js[0]!.task)}`);
      const evidence = [...failing.values()].flatMap((js) =>
        js.slice(0, 2).flatMap((j) => (j.task.kind === 'finding' ? j.task.evidence : []))
      );
      return fail(
        `${[...failing.values()].flat().length} of ${judged.length} accepted creates did not name their task as a string id a poll confirms, in ${failing.size} of ${groups.size} class groups: ${lines.join('; ')}${leftNote}`,
        evidence
      );
    }
    const confirmed = judged.filter((j) => j.task.kind === 'confirmed');
    const undecided = [...byGroup(judged, 'undecided')].map(([g, js]) => `${g} (${js.length}): ${whyOf(js[0]!.task)}`);
    if (confirmed.length === 0)
      return skip(
        `no accepted create's task could be read: ${undecided.join('; ')}`,
        'task reads the target answers for the key that created (within its rate limit)'
      );
    return pass(
      describeConfirmed(confirmed, found?.location) +
        (undecided.length ? `; not verified: ${undecided.join('; ')}` : '') +
        leftNote
    );
  },
};

/** What the confirmed creates showed: how many, of which groups, confirmed how, and where. */
function describeConfirmed(
  confirmed: readonly Judged[],
  runVm: Parameters<typeof describeLocation>[0] | undefined
): string {
  const tasks = confirmed.map((j) => j.task as Extract<RequestTask, { kind: 'confirmed' }>);
  const fromLog = tasks.filter((t) => t.sent === 0).length;
  const elsewhere = tasks.filter((t) => t.elsewhere);
  const groups = [...new Set(confirmed.map((j) => groupOf(j.req, false)))];
  const where = runVm ? ` at ${describeLocation(runVm)}` : '';
  const example: Exchange = tasks[0]!.confirmation;
  return (
    `${confirmed.length} accepted creates of ${groups.length} class groups (${groups.join('; ')}) each named a task${where}${elsewhere.length ? ` (${elsewhere.length} elsewhere, at ${describeLocation(elsewhere[0]!.location)})` : ''}` +
    `, confirmed by ${fromLog} earlier polls of the run and ${tasks.length - fromLog} polled now (e.g. ${describeExchange(example)})`
  );
}
