import type { Declarations } from '../../spec/declarations.ts';
import type { Observe } from '../outcome/observations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger } from './ledger.ts';
import { RUN_TAG_KEY, TAG_SHAPES, tagsInShape, vmsOf, type RunObjects, type TagShape } from './run-objects.ts';
import { readTags } from './discover.ts';
import { Unavailable } from '../outcome/outcome.ts';

/** The list must hold more than the per_page maximum, so a missing cap shows; that also gives a second page. */
const POPULATION_TARGET = 101;
/**
 * Where per_page past 100 is served, the list and one tag must hold this many, so a missing cap shows on a later page
 * too (per_page=101 on page 2 of an uncapped list starts at item 102 and holds 101 items only where there are 202).
 */
const LATER_PAGE_POPULATION = 202;
/** The list shapes a tag field whose records all hold an empty list may take (a map shows itself even empty). */
const LIST_SHAPES = TAG_SHAPES.filter((s) => s !== 'map');
/** Creates certify may spend beyond the population: each tag form it tries (the field records show, then "tags"). */
const TAG_SHAPE_CREATES = LIST_SHAPES.length + TAG_SHAPES.length;
/** Real creates the write-limit probe may need: limit + 1 in two windows. */
const WRITE_PROBE_CREATES = 2 * 61;
/**
 * Creates of the checks themselves (the fixture VM, stateful sequences, coercible values a target accepts, the input
 * classes: 17 VM names and 2 tagged VMs on the reference), measured on the reference (30 in certify) with headroom.
 */
export const CHECK_CREATES = 60;

/** Room certify gives back to the checks when filling the list ran into the quota: population VMs it deletes. */
const QUOTA_RESERVE = 20;

/** Creates certify may spend reaching the VM quota (vms.quota-refusal), one write window's worth. */
export const QUOTA_PROBE_CREATES = 60;

/**
 * Creates of the largest VM the run had accepted, where the standard VM's QUOTA_PROBE_CREATES reached no quota: a quota
 * of vCPUs, memory or disk (an organization's 512 vCPUs) lies within a few of them where 60 more VMs did not reach it.
 */
export const QUOTA_SIZE_CREATES = 20;

/** What certify creates at most by default: every part it may need, printed by --dry-run. */
export function certifyBudget(): { total: number; parts: Array<{ what: string; creates: number }> } {
  const parts = [
    {
      what: `filling a list shorter than ${POPULATION_TARGET} VMs (so a missing per_page cap shows, and a second page exists), or, where per_page past 100 is served, to ${LATER_PAGE_POPULATION} VMs all carrying the run's tag (so a missing cap shows on a later page and under a filter too)`,
      creates: LATER_PAGE_POPULATION,
    },
    {
      what: 'finding how tags are set: one create per form (the field the records keep tags in, in the shape they show; then "tags" as a map, "key:value" strings, {key, value} and {Key, Value} objects)',
      creates: TAG_SHAPE_CREATES,
    },
    {
      what: 'the write-limit probe with real creates, only if writes that create nothing are not counted',
      creates: WRITE_PROBE_CREATES,
    },
    {
      what: 'the checks themselves (the fixture VM, stateful sequences, accepted coercible values, names and tags of each input class)',
      creates: CHECK_CREATES,
    },
    {
      what: 'reaching the VM quota, when no create was refused before: a refusal a delete lifts must say quota_exceeded',
      creates: QUOTA_PROBE_CREATES,
    },
    {
      what: 'reaching a quota of vCPUs, memory or disk with the largest VM the run had accepted, when the standard VM reached none',
      creates: QUOTA_SIZE_CREATES,
    },
  ];
  return { total: parts.reduce((n, p) => n + p.creates, 0), parts };
}

export interface CertifyPreparation {
  /** How tags are set through the create body (declared, or found by trying the shapes and confirming through the filter). */
  tags?: { field: string; shape: TagShape; key: string; declared: boolean; byValue: Record<string, string[]> };
  tagAttempts: Array<{ field: string; shape: TagShape; outcome: string }>;
  /** What the population aimed at: the list's length, and the VMs carrying the run's tag (0: no tag needed). */
  wanted?: { list: number; tagged: number; why: string };
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
  /** Says what certify is about to create, before it does. */
  announce?(message: string): void;
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
    const task = await d.objects.findTask(ex, d.declarations.taskIdOnCreateVm, { lane });
    await d.objects.pollTask(task.id, { lane });
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
}

/**
 * The tag forms worth a create, likeliest first: the field the records keep tags in (any name), in the shape they show
 * there (every list shape where they show only empty lists); then "tags" in each common shape.
 */
async function tagForms(d: Deps): Promise<Array<{ field: string; shape: TagShape }>> {
  const place = await d.objects.tagField();
  const forms: Array<{ field: string; shape: TagShape }> = [];
  if (place) for (const shape of place.shape ? [place.shape] : LIST_SHAPES) forms.push({ field: place.field, shape });
  for (const shape of TAG_SHAPES)
    if (!forms.some((f) => f.field === 'tags' && f.shape === shape)) forms.push({ field: 'tags', shape });
  return forms;
}

/**
 * Tries each tag form on a create until the filter returns the VM it tagged: only then are tags "set" (a target that
 * ignores an unknown field accepts the create too). The overlay's declaration, where there is one, wins.
 */
async function findTagShape(d: Deps, prep: CertifyPreparation, key: string): Promise<void> {
  if (d.declarations.tagsField) {
    prep.tags = { field: d.declarations.tagsField, shape: 'map', key, declared: true, byValue: {} };
    return;
  }
  for (const [i, { field, shape }] of (await tagForms(d)).entries()) {
    if (budgetLeft(d) < 1) {
      prep.tagAttempts.push({
        field,
        shape,
        outcome: `not tried: the create budget (${d.config.names.maxCreates}) is spent`,
      });
      continue;
    }
    const { body } = d.objects.vmCreateBody(`tag-${i + 1}`);
    body[field] = tagsInShape(shape, [[key, 'probe']]);
    const ex = await d.call({ method: 'POST', path: '/v1/vms', json: body, lane: LANES[0] });
    if (!isSuccess(ex)) {
      prep.tagAttempts.push({ field, shape, outcome: `refused: ${statusText(ex)}` });
      if (isServerFailure(ex))
        prep.problems.push({
          message: `a create with tags under ${field} as ${shape} answered ${statusText(ex)}`,
          exchanges: [ex],
        });
      continue;
    }
    d.ledger.record(
      {
        kind: 'vm',
        name: String(body['name']),
        createdBy: 'certify',
        note: `tags under ${field} as ${shape}`,
      },
      ex
    );
    await settle(d, ex, LANES[0]!);
    const filtered = await d.objects.walk(100, { tag: `${key}:probe` });
    if (filtered.items.some((v) => v['name'] === body['name'])) {
      prep.tagAttempts.push({ field, shape, outcome: 'set: the filter returns the VM' });
      prep.tags = { field, shape, key, declared: false, byValue: { probe: [String(body['name'])] } };
      d.objects.foundTags = { field, shape };
      return;
    }
    prep.tagAttempts.push({ field, shape, outcome: `accepted, but tag=${key}:probe does not return the VM` });
  }
}

/**
 * Whether per_page past 100 (101, 500, 1000 on the first page, 101 on the next) is refused, with the query (a tag
 * filter): then a refusal shows the cap and no length of list is needed for it.
 */
async function capRefused(d: Deps, query: Record<string, string>): Promise<boolean> {
  const first = await d.objects.firstPage();
  for (const [page, perPage] of [
    [first, 101],
    [first, 500],
    [first, 1000],
    [first + 1, 101],
  ] as const) {
    const ex = await d.call({
      method: 'GET',
      path: '/v1/vms',
      query: { ...query, page, per_page: perPage },
      lane: LANES[0],
    });
    const status = ex.response?.status ?? 500;
    if (status < 400 || status >= 500) return false;
  }
  return true;
}

/** How many VMs carry a tag, read at per_page=100 up to LATER_PAGE_POPULATION. */
async function carriersOf(d: Deps, tag: string): Promise<number> {
  const first = await d.objects.firstPage();
  const ids = new Set<string>();
  for (let page = first; page < first + 3 && ids.size < LATER_PAGE_POPULATION; page++) {
    const ex = await d.call({ method: 'GET', path: '/v1/vms', query: { tag, page, per_page: 100 }, lane: LANES[0] });
    for (const v of vmsOf(ex)) ids.add(JSON.stringify(v['id']));
    if (!isSuccess(ex) || vmsOf(ex).length < 100) break;
  }
  return ids.size;
}

/**
 * How many VMs the list and the run's tag must hold: a list past 100 always; where per_page past 100 is served, 202
 * (a later page can then show the cap), and, where it is served under a filter, 202 carrying the run's tag unless a
 * tag the records show already has as many.
 */
async function populationWanted(d: Deps, prep: CertifyPreparation): Promise<NonNullable<CertifyPreparation['wanted']>> {
  const whole = await capRefused(d, {});
  const filtered = await capRefused(d, { tag: `cc-absent-${d.config.runId}:none` });
  const list = whole ? POPULATION_TARGET : LATER_PAGE_POPULATION;
  if (filtered || !prep.tags)
    return { list, tagged: 0, why: filtered ? 'per_page past 100 is refused under a filter' : 'tags could not be set' };
  const place = await d.objects.tagField();
  const scale = await d.objects.listScale();
  const counts = new Map<string, number>();
  for (const vm of vmsOf(scale.firstPage))
    for (const [k, v] of (place && readTags(vm[place.field])?.pairs) ?? [])
      if (!k.includes(':')) counts.set(`${k}:${v}`, (counts.get(`${k}:${v}`) ?? 0) + 1);
  const commonest = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (commonest && (await carriersOf(d, commonest)) >= LATER_PAGE_POPULATION)
    return { list, tagged: 0, why: `tag=${commonest} is carried by ${LATER_PAGE_POPULATION} VMs or more` };
  const run = await carriersOf(d, `${RUN_TAG_KEY}:${d.config.runId}`);
  return { list, tagged: LATER_PAGE_POPULATION - run, why: 'per_page past 100 is served under a filter' };
}

/**
 * Creates VMs until the list and the run's tag hold what populationWanted says, within the budget: half of them
 * tagged a and half b, all with the run's tag.
 */
async function populate(d: Deps, prep: CertifyPreparation): Promise<void> {
  // A list already past the target needs no walk to say so (its first page and total suffice).
  const scale = await d.objects.listScale();
  const known =
    scale.size !== undefined && scale.size > LATER_PAGE_POPULATION
      ? scale.size
      : (await d.objects.walk(100)).items.length;
  prep.listBefore = known;
  prep.wanted = await populationWanted(d, prep);
  const need = Math.max(0, prep.wanted.list - known, prep.wanted.tagged);
  const allowed = Math.min(need, budgetLeft(d));
  prep.shortBy = need - allowed;
  if (allowed > 0)
    d.announce?.(
      `creating up to ${allowed} VMs (cc-${d.config.runId}-pop001…) to take the list from ${known} VMs to ${POPULATION_TARGET} for the pagination checks; each is deleted at the end`
    );
  let next = 0;
  let stopped: string | undefined;
  let refusedForRoom: Exchange | undefined;
  const accepted: Array<{ ex: Exchange; lane: string }> = [];
  const worker = async (lane: string) => {
    while (!stopped && next < allowed) {
      const n = ++next;
      const { body } = d.objects.vmCreateBody(`pop${String(n).padStart(3, '0')}`);
      const value = n % 2 ? 'a' : 'b';
      // Half a, half b under the population's key, and every one the run's tag, so one tag holds the whole population.
      if (prep.tags)
        body[prep.tags.field] = prep.tags.declared
          ? { ...(body[prep.tags.field] as object), [prep.tags.key]: value }
          : tagsInShape(prep.tags.shape, [
              [prep.tags.key, value],
              [RUN_TAG_KEY, d.config.runId],
            ]);
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
      d.ledger.record({ kind: 'vm', name, createdBy: 'certify', note: 'fills the list for the pagination checks' }, ex);
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
  // The target refused the run's own input (--image, --subnet-id, the key): the run stops, nothing more is created.
  if (d.objects.inputRefused) return prep;
  await populate(d, prep);
  d.observe('certify', {
    tags: prep.tags ? { field: prep.tags.field, shape: prep.tags.shape, declared: prep.tags.declared } : null,
    tagAttempts: prep.tagAttempts,
    listBefore: prep.listBefore,
    ...(prep.wanted ? { wanted: prep.wanted } : {}),
    populated: prep.populated.length,
    ...(prep.shortBy ? { shortBy: prep.shortBy } : {}),
    ...(prep.plan ? { plan: prep.plan.note } : {}),
  });
  return prep;
}
