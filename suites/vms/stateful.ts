import fc from 'fast-check';
import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { pass, fail, skip, Unavailable } from '../../src/engine/run/check.ts';
import { readTaskState, readTotal, totalCandidatesOf } from '../../src/engine/target/discover.ts';
import { isSuccess, describeExchange, documentedRefusal, ownDescription } from '../support.ts';
import { RANDOM_LANE } from './_create-cases.ts';
import { tagFieldName, tagsOf } from './tag-filter.ts';
import { NOT_FINISHED } from '../tasks/reaches-terminal.ts';
import { tagsInShape } from '../../src/engine/target/run-objects.ts';

const MAX_CREATES = 3;
const MAX_COMMANDS = 6;

interface ModelVm {
  name: string;
  taskId: string;
  tag?: [string, string];
  /** Terminal state value once seen; it must never change afterwards. */
  terminal?: string;
  succeeded?: boolean;
  id?: string;
  backedUp?: boolean;
  /** Created with the run's own tag too (a long list is walked under it). */
  runTagged?: boolean;
}

interface Model {
  vms: ModelVm[];
  /** Pointer of the total field, learned on the first walk (declared, or the candidate equal to the walk). */
  totalPointer?: string | null;
}

interface Real {
  ctx: CheckContext;
  trail: string[];
  evidence: Exchange[];
}

/** An invariant of the model broke: the message says which, the exchanges show it. */
class InvariantBroken extends Error {
  constructor(
    message: string,
    readonly exchanges: Exchange[]
  ) {
    super(message);
  }
}

/** The target refused for a documented reason (quota, rate limit): the run proves nothing either way. */
class Inconclusive extends Error {}

async function create(model: Model, real: Real, tagValue: string): Promise<void> {
  const { ctx } = real;
  const n = model.vms.length + 1;
  const { body } = ctx.objects.vmCreateBody(`st${n}`);
  let tag: [string, string] | undefined;
  // Tags where the overlay declares how they are set, where certify found the shape that sets them, or where the run's
  // own tag was found to be set as a map; the run's tag travels too, so a long list is walked under it.
  const found = ctx.certify?.tags;
  const runTag = await ctx.objects.runTag();
  const field = ctx.declarations.tagsField ?? found?.field ?? runTag?.field;
  if (field) {
    tag = [`cc-st-${ctx.config.runId}`, tagValue];
    const pairs: Array<[string, string]> = runTag ? [tag, [runTag.key, runTag.value]] : [tag];
    const shape = ctx.declarations.tagsField ? 'map' : (found?.shape ?? runTag?.shape ?? 'map');
    body[field] = tagsInShape(shape, pairs);
  }
  const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: body, lane: RANDOM_LANE });
  if (!isSuccess(ex)) {
    if (documentedRefusal(ex)) throw new Inconclusive(`create refused: ${describeExchange(ex)}`);
    throw new InvariantBroken(`a valid create was refused: ${describeExchange(ex)}`, [ex]);
  }
  ctx.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: ctx.checkId }, ex);
  try {
    const task = await ctx.objects.findTask(ex, ctx.declarations.taskIdOnCreateVm);
    model.vms.push({ name: String(body['name']), taskId: task.id, tag, runTagged: !!(field && runTag) });
  } catch (err) {
    if (err instanceof Unavailable) throw new InvariantBroken(err.message, [ex]);
    throw err;
  }
}

/** Polls to completion, then once more: completion is final. */
async function poll(model: Model, real: Real, vm: ModelVm): Promise<void> {
  const { ctx } = real;
  const outcome = await ctx.objects.pollTask(vm.taskId);
  const last = outcome.polls[outcome.polls.length - 1]!;
  if (!outcome.state.terminal) {
    // Past the timeout in a state that plainly means "not finished" (or a declared one) it did not complete; a state
    // the suite cannot read as finished or not leaves the sequence undecided (tasks.reaches-terminal says so too).
    if (outcome.state.declared || NOT_FINISHED.test(outcome.state.value ?? ''))
      throw new InvariantBroken(
        `task ${vm.taskId} did not complete (last ${outcome.state.field}=${outcome.state.value ?? '?'})`,
        [last]
      );
    throw new Inconclusive(
      `task ${vm.taskId} settled on ${outcome.state.field ?? '(no state field)'}=${outcome.state.value ?? '?'}, which the suite cannot tell finished or not`
    );
  }
  const again = await ctx.call({
    method: 'GET',
    path: `/v1/tasks/${encodeURIComponent(vm.taskId)}`,
    lane: RANDOM_LANE,
  });
  const after = readTaskState(again.response?.json, ctx.declarations.task);
  for (const value of [outcome.state.value, after.value]) {
    if (vm.terminal !== undefined && value !== vm.terminal) {
      throw new InvariantBroken(`task ${vm.taskId} left its terminal state ${vm.terminal}: now ${value ?? '(none)'}`, [
        last,
        again,
      ]);
    }
    vm.terminal ??= value;
  }
  vm.succeeded = outcome.state.success !== false;
  void model;
}

/** Walks every page and checks the model's invariants against what the list shows. */
async function walk(model: Model, real: Real, perPage: number, tag?: [string, string]): Promise<void> {
  const { ctx } = real;
  // A long list (certify's too: the model walks it several times) is walked under the run's own tag: the run's VMs,
  // which the model knows.
  const scale = await ctx.objects.listScale();
  const runTag = !tag && scale.large ? await ctx.objects.runTag() : undefined;
  if (!tag && scale.large && !runTag)
    throw new Inconclusive(
      `the list holds ${scale.size} VMs, too many to walk whole, and the run could not tag its own VMs to walk them alone`
    );
  const query: Record<string, string> = tag
    ? { tag: `${tag[0]}:${tag[1]}` }
    : runTag
      ? { tag: `${runTag.key}:${runTag.value}` }
      : {};
  const w = await ctx.objects.walk(perPage, query);
  const pages = w.pages;
  if (w.capped) throw new Inconclusive(`the list is longer than a bounded walk covers (${w.stoppedBecause})`);
  if (!w.complete)
    throw new InvariantBroken(`walking the list at per_page=${w.perPage} failed: ${w.stoppedBecause}`, pages.slice(-1));
  const ids = w.items.map((v) => v['id']);
  const notString = ids.filter((id) => typeof id !== 'string');
  if (notString.length)
    throw new InvariantBroken(`ids are not strings: ${JSON.stringify(notString.slice(0, 3))}`, pages.slice(0, 2));
  const seen = new Set<unknown>();
  for (const id of ids) {
    if (seen.has(id))
      throw new InvariantBroken(`id ${JSON.stringify(id)} appears on two pages at per_page=${perPage}`, pages);
    seen.add(id);
  }
  const relevant = model.vms.filter(
    (v) => v.succeeded && (tag ? v.tag?.[0] === tag[0] && v.tag?.[1] === tag[1] : !runTag || v.runTagged)
  );
  for (const vm of relevant) {
    const matches = w.items.filter((v) => v['name'] === vm.name);
    if (matches.length !== 1)
      throw new InvariantBroken(
        `${vm.name}, whose task succeeded, appears ${matches.length} times${tag ? ` under tag=${tag.join(':')}` : runTag ? ` under the run's tag ${runTag.key}:${runTag.value}` : ''}`,
        pages.slice(-2)
      );
    const id = matches[0]!['id'] as string;
    if (vm.id !== undefined && vm.id !== id)
      throw new InvariantBroken(`${vm.name} changed id from ${vm.id} to ${id}`, pages.slice(-1));
    vm.id = id;
  }
  if (tag) {
    const field = await tagFieldName(ctx);
    const stranger = w.items.find(
      (v) => tagsOf(v, field) !== undefined && !tagsOf(v, field)!.some(([k, val]) => k === tag[0] && val === tag[1])
    );
    if (stranger)
      throw new InvariantBroken(
        `tag=${tag.join(':')} returned ${JSON.stringify(stranger['id'])}, which lacks the tag`,
        pages.slice(0, 1)
      );
    return;
  }
  const first = pages[0];
  if (!first) return;
  if (model.totalPointer === undefined) {
    const declared = ctx.declarations.totalField;
    model.totalPointer = declared
      ? '/' + declared.replace(/\./g, '/')
      : (totalCandidatesOf(first).find((c) => c.value === seen.size)?.pointer ?? null);
  }
  if (model.totalPointer) {
    const total = readTotal(first, model.totalPointer);
    if (total !== seen.size)
      throw new InvariantBroken(
        `total ${model.totalPointer} says ${String(total)} but the walk found ${seen.size} VMs`,
        pages.slice(0, 1)
      );
  }
}

async function backup(real: Real, vm: ModelVm): Promise<void> {
  const { ctx } = real;
  const ex = await ctx.call({
    method: 'POST',
    path: `/v1/vms/${encodeURIComponent(vm.id!)}/backups`,
    json: { description: ownDescription(ctx, 'stateful') },
    lane: RANDOM_LANE,
  });
  if (!isSuccess(ex)) {
    if (documentedRefusal(ex)) throw new Inconclusive(`backup refused: ${describeExchange(ex)}`);
    // 409: not in a state the target backs up; states and transitions are not shown, so the sequence goes on.
    if (ex.response?.status === 409) {
      real.trail.push("(backup refused for the VM's state: 409)");
      vm.backedUp = true;
      return;
    }
    throw new InvariantBroken(`starting a backup of ${vm.id} was refused: ${describeExchange(ex)}`, [ex]);
  }
  ctx.ledger.record({ kind: 'backup', createdBy: ctx.checkId, note: `of VM ${vm.id}` }, ex);
  vm.backedUp = true;
}

type Cmd = fc.AsyncCommand<Model, Real, false>;

function command(name: string, check: (m: Readonly<Model>) => boolean, run: (m: Model, r: Real) => Promise<void>): Cmd {
  return {
    check: (m) => check(m),
    run: async (m, r) => {
      r.trail.push(name);
      await run(m, r);
    },
    toString: () => name,
  };
}

const pick = <T>(xs: T[], i: number): T => xs[i % xs.length]!;

function commandArbitraries(): Array<fc.Arbitrary<Cmd>> {
  return [
    fc.constantFrom('a', 'b').map((v) =>
      command(
        `create(tag ${v})`,
        (m) => m.vms.length < MAX_CREATES,
        (m, r) => create(m, r, v)
      )
    ),
    fc.nat().map((i) =>
      command(
        `poll(${i})`,
        (m) => m.vms.length > 0,
        (m, r) => poll(m, r, pick(m.vms, i))
      )
    ),
    fc.constantFrom(25, 50, 100).map((n) =>
      command(
        `walk(per_page ${n})`,
        () => true,
        (m, r) => walk(m, r, n)
      )
    ),
    fc.nat().map((i) =>
      command(
        `filter(${i})`,
        (m) => m.vms.some((v) => v.succeeded && v.tag),
        (m, r) =>
          walk(
            m,
            r,
            100,
            pick(
              m.vms.filter((v) => v.succeeded && v.tag),
              i
            ).tag
          )
      )
    ),
    fc.nat().map((i) =>
      command(
        `backup(${i})`,
        (m) => m.vms.some((v) => v.id && !v.backedUp),
        (m, r) =>
          backup(
            r,
            pick(
              m.vms.filter((v) => v.id && !v.backedUp),
              i
            )
          )
      )
    ),
  ];
}

/**
 * Model-based run (fast-check commands, deterministic under --seed): random sequences of create, poll, walk,
 * tag filter and backup, each checked against a model; then a fixed audit polls every task and walks the list,
 * so the invariants are checked at the end of every run whatever the sequence was.
 */
export const stateful: Check = {
  id: 'vms.stateful',
  group: 'vms',
  clauses: ['TASK-POLL', 'VM-LIST', 'PAGE-PARAMS', 'PAGE-TOTAL', 'TAG-FILTER', 'ID-OPAQUE-STRING'],
  level: 'must',
  why: {
    must: 'each invariant is a seed statement: listed once, opaque string ids, pages and total, polling to completion',
  },
  title: 'Stateful sequences keep the invariants: listed once, stable string ids, disjoint pages, final tasks',
  async run(ctx) {
    ctx.objects.vmCreateBody('stateful'); // skips the check when no VM can be created
    let broken: InvariantBroken | undefined;
    let inconclusive: Inconclusive | undefined;
    let trail: string[] = [];
    const property = fc.asyncProperty(
      fc.commands(commandArbitraries(), { maxCommands: MAX_COMMANDS }),
      async (cmds) => {
        const model: Model = { vms: [] };
        const real: Real = { ctx, trail: [], evidence: [] };
        trail = real.trail;
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          if (model.vms.length === 0) await create(model, real, 'a');
          real.trail.push('audit');
          for (const vm of model.vms) await poll(model, real, vm);
          await walk(model, real, 100);
        } catch (err) {
          if (err instanceof InvariantBroken) broken = err;
          else if (err instanceof Inconclusive) inconclusive = err;
          else throw err;
          return false;
        }
        return true;
      }
    );
    // One sequence per run; replaying to shrink would repeat its writes, so the sequence is reported as found.
    const details = await fc.check(property, { seed: ctx.config.seed, numRuns: 1, endOnFailure: true });
    if (broken) {
      return fail(`${broken.message} (sequence: ${trail.join(' → ')}; seed ${ctx.config.seed})`, broken.exchanges, {
        sequence: trail,
        seed: ctx.config.seed,
      });
    }
    if (inconclusive)
      return skip(
        `inconclusive: ${inconclusive.message}`,
        'rerun when the organization has quota and rate budget left'
      );
    if (details.failed) return fail(`the stateful run stopped: ${String(details.errorInstance)}`, []);
    return pass(`sequence ${trail.join(' → ')} kept every invariant (seed ${ctx.config.seed})`);
  },
};
