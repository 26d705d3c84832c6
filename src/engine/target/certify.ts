import type { Declarations } from '../../spec/declarations.ts';
import type { Observe } from '../outcome/observations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger } from './ledger.ts';
import { TAG_SHAPES, tagsInShape, type RunObjects, type TagShape } from './run-objects.ts';
import { Unavailable } from '../outcome/outcome.ts';

/** The list must hold more than the per_page maximum, so a missing cap shows; that also gives a second page. */
export const POPULATION_TARGET = 101;
/** Creates certify may spend beyond the population: the tag shapes it tries. */
export const TAG_SHAPE_CREATES = TAG_SHAPES.length;
/** Real creates the write-limit probe may need: limit + 1 in two windows. */
export const WRITE_PROBE_CREATES = 2 * 61;
/** Creates of the checks themselves (the fixture VM, stateful sequences, coercible values a target accepts), measured on the reference with headroom. */
export const CHECK_CREATES = 40;

/** Room certify gives back to the checks when filling the list ran into the quota: population VMs it deletes. */
export const QUOTA_RESERVE = 20;

/** Creates certify may spend reaching the VM quota (vms.quota-refusal), one write window's worth. */
export const QUOTA_PROBE_CREATES = 60;

/** What certify creates at most by default: every part it may need, printed by --dry-run. */
export function certifyBudget(): { total: number; parts: Array<{ what: string; creates: number }> } {
  const parts = [
    {
      what: `filling a list shorter than ${POPULATION_TARGET} VMs (so a missing per_page cap shows, and a second page exists)`,
      creates: POPULATION_TARGET,
    },
    {
      what: 'finding how tags are set: one create per common shape (map, "key:value" strings, {key, value} objects)',
      creates: TAG_SHAPE_CREATES,
    },
    {
      what: 'the write-limit probe with real creates, only if writes that create nothing are not counted',
      creates: WRITE_PROBE_CREATES,
    },
    {
      what: 'the checks themselves (the fixture VM, stateful sequences, accepted coercible values)',
      creates: CHECK_CREATES,
    },
    {
      what: 'reaching the VM quota, when no create was refused before: a refusal a delete lifts must say quota_exceeded',
      creates: QUOTA_PROBE_CREATES,
    },
  ];
  return { total: parts.reduce((n, p) => n + p.creates, 0), parts };
}

export interface CertifyPreparation {
  /** How tags are set through the create body (declared, or found by trying the shapes and confirming through the filter). */
  tags?: { field: string; shape: TagShape; key: string; declared: boolean; byValue: Record<string, string[]> };
  tagAttempts: Array<{ shape: TagShape; outcome: string }>;
  /** VMs the list held before certify added any, when it could be walked. */
  listBefore?: number;
  /** VMs certify created to fill the list. */
  populated: string[];
  /** How many more the list needed than the budget allowed. */
  shortBy: number;
  /** Answers to valid creates that break the seed (a 5xx or no answer), for the checks that depend on them to report. */
  problems: Array<{ message: string; exchanges: Exchange[] }>;
  /** How certify planned its creates around a quota it met: what it stopped at and what it gave back to the checks. */
  plan?: { stoppedBy: string; deleted: number; reserve: number; note: string };
}

interface Deps {
  config: RunConfig;
  declarations: Declarations;
  ledger: Ledger;
  objects: RunObjects;
  call(opts: CallOptions): Promise<Exchange>;
  observe: Observe;
}

/** Two tokens of their own: the population's writes never eat the checks' budget. */
const LANES = ['certify-1', 'certify-2'];

const createdSoFar = (ledger: Ledger) => ledger.entries.filter((e) => e.kind === 'vm').length;

function budgetLeft(d: Deps): number {
  return d.config.maxCreates === undefined ? Infinity : Math.max(0, d.config.maxCreates - createdSoFar(d.ledger));
}

const isServerFailure = (ex: Exchange) => !ex.response || ex.response.status >= 500;
const isDocumentedRefusal = (ex: Exchange) =>
  ex.response?.status === 429 ||
  (ex.response?.json as { error?: { code?: unknown } } | undefined)?.error?.code === 'quota_exceeded';

/** Waits until a created VM's task is over (declared or discovered task id), so the list shows it. */
async function settle(d: Deps, ex: Exchange, lane: string): Promise<void> {
  try {
    const task = await d.objects.findTask(ex, d.declarations.taskIdOnCreateVm, lane);
    await d.objects.pollTask(task.id, lane);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
}

/**
 * Tries each common tag shape on a create until the filter returns the VM it tagged: only then are tags "set" (a
 * target that ignores an unknown field accepts the create too). The overlay's declaration, where there is one, wins.
 */
async function findTagShape(d: Deps, prep: CertifyPreparation, key: string): Promise<void> {
  if (d.declarations.tagsField) {
    prep.tags = { field: d.declarations.tagsField, shape: 'map', key, declared: true, byValue: {} };
    return;
  }
  for (const shape of TAG_SHAPES) {
    if (budgetLeft(d) < 1) {
      prep.tagAttempts.push({ shape, outcome: `not tried: the create budget (${d.config.names.maxCreates}) is spent` });
      continue;
    }
    const { body } = d.objects.vmCreateBody(`tag-${shape}`);
    body['tags'] = tagsInShape(shape, [[key, 'probe']]);
    const ex = await d.call({ method: 'POST', path: '/v1/vms', json: body, lane: LANES[0] });
    if (!isSuccess(ex)) {
      prep.tagAttempts.push({ shape, outcome: `refused: ${statusText(ex)}` });
      if (isServerFailure(ex))
        prep.problems.push({ message: `a create with tags as ${shape} answered ${statusText(ex)}`, exchanges: [ex] });
      continue;
    }
    d.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: 'certify', note: `tags as ${shape}` });
    await settle(d, ex, LANES[0]!);
    const filtered = await d.objects.walk(100, { tag: `${key}:probe` });
    if (filtered.items.some((v) => v['name'] === body['name'])) {
      prep.tagAttempts.push({ shape, outcome: 'set: the filter returns the VM' });
      prep.tags = { field: 'tags', shape, key, declared: false, byValue: { probe: [String(body['name'])] } };
      d.objects.foundTags = { field: 'tags', shape };
      return;
    }
    prep.tagAttempts.push({ shape, outcome: `accepted, but tag=${key}:probe does not return the VM` });
  }
}

/** Creates VMs until the list holds POPULATION_TARGET, within the budget, half of them tagged a and half b. */
async function populate(d: Deps, prep: CertifyPreparation): Promise<void> {
  // A list already past the target needs no walk to say so (its first page and total suffice).
  const scale = await d.objects.listScale();
  const known =
    scale.size !== undefined && scale.size > POPULATION_TARGET ? scale.size : (await d.objects.walk(100)).items.length;
  prep.listBefore = known;
  const need = Math.max(0, POPULATION_TARGET - known);
  const allowed = Math.min(need, budgetLeft(d));
  prep.shortBy = need - allowed;
  let next = 0;
  let stopped: string | undefined;
  let refusedForRoom: Exchange | undefined;
  const accepted: Array<{ ex: Exchange; lane: string }> = [];
  const worker = async (lane: string) => {
    while (!stopped && next < allowed) {
      const n = ++next;
      const { body } = d.objects.vmCreateBody(`pop${String(n).padStart(3, '0')}`);
      const value = n % 2 ? 'a' : 'b';
      if (prep.tags)
        body[prep.tags.field] = prep.tags.declared
          ? { ...(body[prep.tags.field] as object), [prep.tags.key]: value }
          : tagsInShape(prep.tags.shape, [[prep.tags.key, value]]);
      const ex = await d.call({ method: 'POST', path: '/v1/vms', json: body, lane });
      if (!isSuccess(ex)) {
        if (isServerFailure(ex))
          prep.problems.push({
            message: `a valid create answered ${statusText(ex)} while filling the list`,
            exchanges: [ex],
          });
        stopped = isDocumentedRefusal(ex)
          ? `the target refused a create (${statusText(ex)}, a documented refusal) after ${prep.populated.length}`
          : `a valid create was refused (${statusText(ex)}) after ${prep.populated.length}`;
        // The same body was accepted before: a 4xx that is not about credentials or rate is a want of room.
        const status = ex.response?.status ?? 0;
        if (prep.populated.length > 0 && status >= 400 && status < 500 && ![401, 408, 413, 415, 429].includes(status))
          refusedForRoom ??= ex;
        break;
      }
      const name = String(body['name']);
      d.ledger.record({ kind: 'vm', name, createdBy: 'certify', note: 'fills the list for the pagination checks' });
      prep.populated.push(name);
      if (prep.tags) (prep.tags.byValue[value] ??= []).push(name);
      accepted.push({ ex, lane });
    }
  };
  await Promise.all(LANES.map(worker));
  // Then wait for every task (most are over by now), so the list shows them all before any check walks it.
  const queue = [...accepted];
  await Promise.all(
    LANES.map(async (lane) => {
      for (let a = queue.shift(); a; a = queue.shift()) await settle(d, a.ex, lane);
    })
  );
  if (stopped) {
    prep.shortBy += allowed - prep.populated.length;
    d.observe('certifyPopulationStopped', stopped);
    if (refusedForRoom) await giveBackRoom(d, prep, refusedForRoom);
  }
}

/**
 * Filling the list met a refusal for want of room (a quota): the checks' own creates come first, so up to QUOTA_RESERVE
 * population VMs, newest first, are deleted again (declared delete, or the conventional DELETE /v1/vms/{id}).
 */
async function giveBackRoom(d: Deps, prep: CertifyPreparation, refusal: Exchange): Promise<void> {
  const victims = prep.populated.slice(-QUOTA_RESERVE);
  const del = d.declarations.cleanup.vm ?? { method: 'DELETE', path: '/v1/vms/{id}' };
  const { matches } = await d.objects.findInList(victims);
  let deleted = 0;
  const settling: Array<{ ex: Exchange; lane: string }> = [];
  for (const [i, m] of matches.entries()) {
    const entry = d.ledger.entries.find((e) => e.kind === 'vm' && e.name === m['name'] && e.cleanup === 'pending');
    if (!entry || typeof m['id'] !== 'string') continue;
    const lane = LANES[i % LANES.length]!;
    const ex = await d.call({ method: del.method, path: del.path.replace('{id}', encodeURIComponent(m['id'])), lane });
    if (!isSuccess(ex)) break;
    entry.id = m['id'];
    entry.cleanup = 'deleted';
    entry.note = 'deleted again by certify: filling the list met the quota, and the checks need room to create';
    prep.populated.splice(prep.populated.indexOf(entry.name!), 1);
    for (const names of Object.values(prep.tags?.byValue ?? {}))
      if (names.includes(entry.name!)) names.splice(names.indexOf(entry.name!), 1);
    deleted++;
    settling.push({ ex, lane });
  }
  for (const s of settling) await settle(d, s.ex, s.lane);
  prep.plan = {
    stoppedBy: `${refusal.request.method} /v1/vms → ${statusText(refusal)}`,
    deleted,
    reserve: QUOTA_RESERVE,
    note: deleted
      ? `filling the list met the quota after ${prep.populated.length + deleted} creates; ${deleted} of them were deleted again so the checks can create (the list holds ${prep.populated.length} of certify's VMs)`
      : `filling the list met the quota after ${prep.populated.length} creates, and none could be deleted again (no delete operation answered): the checks may find no room`,
  };
  d.observe('certifyPlan', prep.plan);
}

/**
 * The certify profile's preparation, before any check: how tags are set, and a list long enough for the pagination
 * checks to decide (more than 100 VMs). Everything it creates is in the ledger, named cc-<run id>-…, and cleaned up
 * where a delete operation is declared or discovered.
 */
export async function prepareCertify(d: Deps): Promise<CertifyPreparation> {
  const prep: CertifyPreparation = { tagAttempts: [], populated: [], shortBy: 0, problems: [] };
  try {
    d.objects.vmCreateBody('certify');
  } catch (err) {
    if (err instanceof Unavailable) return prep; // no --image/--subnet-id: nothing can be created, the checks say so
    throw err;
  }
  await findTagShape(d, prep, `cc-${d.config.runId}`);
  // The run's own VM before the list's: an organization near its quota must not spend it all on filling the list.
  // Its task polled to the end too: a read operation besides the list, which the read limit is also held to.
  await d.objects
    .acceptedVm()
    .then(() => d.objects.vmTaskOutcome())
    .catch((err: unknown) => {
      if (!(err instanceof Unavailable)) throw err;
    });
  await populate(d, prep);
  d.observe('certify', {
    tags: prep.tags ? { field: prep.tags.field, shape: prep.tags.shape, declared: prep.tags.declared } : null,
    tagAttempts: prep.tagAttempts,
    listBefore: prep.listBefore,
    populated: prep.populated.length,
    ...(prep.shortBy ? { shortBy: prep.shortBy } : {}),
    ...(prep.plan ? { plan: prep.plan.note } : {}),
  });
  return prep;
}
