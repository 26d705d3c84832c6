import { setTimeout as sleep } from 'node:timers/promises';
import type { Declarations, ValueLocation } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger } from './ledger.ts';
import type { KeyName } from '../config/config.ts';
import { Unavailable } from '../outcome/outcome.ts';
import {
  declaredTotalPointer,
  readLocation,
  readTaskState,
  readTotal,
  taskIdCandidates,
  taskIdIn,
  totalCandidatesOf,
  describeLocation,
  type Candidate,
  type TaskState,
} from './discover.ts';
import { Waits } from '../transport/waits.ts';

export interface CreatedVm {
  name: string;
  body: Record<string, unknown>;
  tags?: Record<string, string>;
  exchange: Exchange;
  accepted: boolean;
  /** Every create sent for it: per size tried, with the run's tentative tag and without it (the last is `exchange`). */
  attempts: Exchange[];
  /** Sizes refused for their content before this one. */
  refusedSizes: number;
}

/**
 * Sizes for the run's VMs, smallest first. The seed shows no ranges, so a target may refuse the smallest for its
 * content (a 4xx): the next size is tried, and the first one accepted is used for every VM the run creates.
 */
export const SIZE_LADDER: ReadonlyArray<{ vcpus: number; memory_gb: number; system_disk_gb: number }> = [
  { vcpus: 1, memory_gb: 1, system_disk_gb: 20 },
  { vcpus: 2, memory_gb: 4, system_disk_gb: 50 },
  { vcpus: 4, memory_gb: 16, system_disk_gb: 100 },
];

export interface FoundTask {
  id: string;
  location: ValueLocation;
  declared: boolean;
  /** GET /v1/tasks/{id} that confirmed the id. */
  confirmation: Exchange;
  tried: Array<Candidate & { confirmation?: Exchange }>;
}

export interface TaskOutcome {
  state: TaskState;
  polls: Exchange[];
  timedOut: boolean;
  /** Every state value seen, in order, without repeats. */
  history: string[];
}

export interface ListWalk {
  perPage: number;
  firstPage: number;
  pages: Exchange[];
  items: Array<Record<string, unknown>>;
  /** False when the walk stopped at its page cap or on an error before an empty page. */
  complete: boolean;
  stoppedBecause: string;
  /** True when it stopped at the page cap: the list is longer than a bounded walk covers, which is not the target's fault. */
  capped: boolean;
  /** True when the list still changed while it was walked (after retries): VMs appeared or went away meanwhile. */
  moved: boolean;
  /** What was read, when it is not the whole list: "tag=cc-run:…", "the list's first and last pages". */
  scope?: string;
}

/**
 * How long the VM list is, read off its first page: the run walks the whole list only when that is cheap. Above
 * WHOLE_LIST_VMS (quick and full; certify walks the whole list within a larger bound), checks about the run's own
 * objects find them through the run's tag or at the ends of the list, and pagination is judged on a prefix and the
 * last page.
 */
export interface ListScale {
  /** VMs in the list by its total-like count (or by a first page that is not full). */
  size?: number;
  /** Where that count sits (a body pointer or header:name), when it came from one. */
  pointer?: string;
  /** True when the list holds more than WHOLE_LIST_VMS. */
  large: boolean;
  /** True when the checks may walk the whole list: it is not large, or the profile is certify. */
  whole: boolean;
  firstPage: Exchange;
}

/** The tag every VM the run wants to find again carries, and how the run knows tags are set that way. */
export interface RunTag {
  field: string;
  key: string;
  value: string;
  how: 'declared' | 'certify' | 'discovered';
}

type Call = (opts: CallOptions) => Promise<Exchange>;

export const MAX_WALK_PAGES = 60;
/** The most pages certify walks of the whole list (at per_page 100: 40,000 VMs), within its read budget. */
export const CERTIFY_MAX_WALK_PAGES = 400;
/** Lists longer than this are not walked whole in the quick and full profiles (see ListScale). */
export const WHOLE_LIST_VMS = 1000;
/** The tag key of the run's own VMs (its value is the run id). */
export const RUN_TAG_KEY = 'cc-run';
/** Pages a walk reads ahead of the one it is judging, where the first page's total says they exist. */
const READ_AHEAD_PAGES = 3;
/** Walks of a list that changed under them are retried after these waits (target-seconds): the run's own creates settle. */
const SETTLE_WAITS_SECONDS = [2, 5, 15];

/** A page size at least `preferred` with which a list of `size` items fits in a bounded walk (at most 100). */
export function fitPerPage(preferred: number, size: number | undefined, maxPages = MAX_WALK_PAGES): number {
  if (!size) return preferred;
  return Math.min(100, Math.max(preferred, Math.ceil((size * 1.2) / (maxPages - 1))));
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** Polls of a task made at the quick pace: most tasks end within seconds, and waiting a whole second more costs the run. */
const QUICK_POLLS = 12;
const QUICK_POLL_MS = 250;

/** {k: v}, ["k:v"] or [{key: k, value: v}]: how tags travel in a create body, in the shapes targets commonly use. */
export type TagShape = 'map' | 'strings' | 'objects';
export const TAG_SHAPES: readonly TagShape[] = ['map', 'strings', 'objects'];

export function tagsInShape(shape: TagShape, tags: ReadonlyArray<readonly [string, string]>): unknown {
  if (shape === 'map') return Object.fromEntries(tags);
  if (shape === 'strings') return tags.map(([k, v]) => `${k}:${v}`);
  return tags.map(([key, value]) => ({ key, value }));
}

/** Real ms before the next poll of a task: a quarter second for the first few, then once a target-second. */
export function pollIntervalMs(pollsSoFar: number, timeScale: number): number {
  const cadence = Math.max(20, 1000 / timeScale);
  return pollsSoFar < QUICK_POLLS ? Math.min(QUICK_POLL_MS, cadence) : cadence;
}

/**
 * Shared state that several checks depend on (a created VM, its task, a walk of the list), made once per run
 * on first use. When it cannot be made, dependent checks are skipped with the reason.
 */
export class RunObjects {
  /** Items the last complete walk of the whole list found: later walks pick page sizes that fit their bound. */
  private knownSize: number | undefined;
  /** The sizes of the run's VMs: the smallest until a create tells otherwise. */
  private sizes = SIZE_LADDER[0]!;
  /** How tags are set through the create body, where certify found it by trying the common shapes. */
  foundTags?: { field: string; shape: TagShape };

  constructor(
    private readonly call: Call,
    private readonly config: RunConfig,
    private readonly declarations: Declarations,
    private readonly ledger: Ledger,
    private readonly waits: Waits = new Waits()
  ) {}

  vmName(suffix: string): string {
    return `cc-${this.config.runId}-${suffix}`;
  }

  /** A create-VM request valid on the target, from the image and subnet the run was given. */
  vmCreateBody(suffix: string): { body: Record<string, unknown>; tags?: Record<string, string> } {
    const { readOnly, image, subnetId } = this.config.names;
    if (this.config.readOnly) throw new Unavailable(`${readOnly}: it would create a VM`, `a run without ${readOnly}`);
    if (!this.config.image || !this.config.subnetId) {
      throw new Unavailable(
        `needs ${image} and ${subnetId} (values valid on the target for creating a VM)`,
        `${image} NAME ${subnetId} ID (values valid on the target)`
      );
    }
    const body: Record<string, unknown> = {
      name: this.vmName(suffix),
      vcpus: this.sizes.vcpus,
      memory_gb: this.sizes.memory_gb,
      image: this.config.image,
      system_disk_gb: this.sizes.system_disk_gb,
      subnet_id: this.config.subnetId,
    };
    let tags: Record<string, string> | undefined;
    if (this.declarations.tagsField) {
      tags = { 'cc-run': this.config.runId };
      body[this.declarations.tagsField] = tags;
    }
    return { body, tags };
  }

  readonly vm = memo(async (): Promise<CreatedVm> => {
    this.vmAsked = true;
    const attempts: Exchange[] = [];
    // Tags are not shown in the create request: where nobody said how they are set, the run's tag is tried as a map
    // under "tags" (the most common shape); a size refused with it is tried again without it, which tells a refusal
    // of the tag from one of the size.
    let tentative = !this.declarations.tagsField && !this.foundTags && !this.config.readOnly;
    for (let i = 0; i < SIZE_LADDER.length; i++) {
      this.sizes = SIZE_LADDER[i]!;
      for (const withTag of tentative ? [true, false] : [false]) {
        const { body, tags: declaredTags } = this.vmCreateBody('vm1');
        let tags = declaredTags;
        if (this.foundTags && !this.declarations.tagsField) {
          tags = { [RUN_TAG_KEY]: this.config.runId };
          body[this.foundTags.field] = tagsInShape(this.foundTags.shape, Object.entries(tags));
        } else if (withTag) {
          tags = { [RUN_TAG_KEY]: this.config.runId };
          body['tags'] = tags;
        }
        const exchange = await this.call({ method: 'POST', path: '/v1/vms', json: body });
        attempts.push(exchange);
        const accepted = isSuccess(exchange);
        const done = (): CreatedVm => ({
          name: String(body['name']),
          body,
          tags,
          exchange,
          accepted,
          attempts,
          refusedSizes: i,
        });
        if (accepted) {
          this.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: exchange.sentBy });
          this.tentativeTag = withTag;
          return done();
        }
        // Only a refusal of the request's content makes another size worth trying: not credentials, quota, rate or a 5xx.
        const status = exchange.response?.status ?? 0;
        const forContent =
          status >= 400 &&
          status < 500 &&
          ![401, 403, 404, 429].includes(status) &&
          errorCodeOf(exchange) !== 'quota_exceeded';
        // The tentative tag may be what was refused (or broke the target): the same size again, as the seed shows the body.
        if (withTag && (forContent || status >= 500)) continue;
        if (!forContent || i === SIZE_LADDER.length - 1) return done();
        // Refused without the tag too: the size was refused, and the tag is still worth trying on the next one.
      }
    }
    throw new Error('unreachable: the size ladder is not empty');
  });

  /** True once a check has asked for the run's VM (made it, or tried to). */
  private vmAsked = false;

  /** The run's VM id where a check made the VM (none is made here), for the reads of the run's own objects. */
  async madeVmId(): Promise<string | undefined> {
    if (!this.vmAsked) return undefined;
    return this.createdVmId().catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
  }

  /** True when the run's VM carries the run's tag only tentatively (nobody declared how tags are set). */
  private tentativeTag = false;

  async acceptedVm(): Promise<CreatedVm> {
    const vm = await this.vm();
    if (!vm.accepted)
      throw new Unavailable(
        `creating a VM was refused (${statusText(vm.exchange)})`,
        `a create-VM request the target accepts (check ${this.config.names.image} and ${this.config.names.subnetId}, and the organization's quota)`
      );
    return vm;
  }

  /** Finds the task id of the created VM: where the overlay declares it, else by trying every candidate. */
  readonly vmTask = memo(async (): Promise<FoundTask> => {
    const vm = await this.acceptedVm();
    return this.findTask(vm.exchange, this.declarations.taskIdOnCreateVm);
  });

  async findTask(ex: Exchange, declared?: ValueLocation, lane?: string): Promise<FoundTask> {
    // A declared value may be the id, a path, a resource name or a URL (operations/<id>): the id it names first, then
    // the value itself, each confirmed by a poll.
    const at = declared && readLocation(ex, declared);
    const candidates: Candidate[] = declared
      ? [...new Set([taskIdIn(at), at])].map((value) => ({ location: declared, value }))
      : taskIdCandidates(ex);
    const tried: FoundTask['tried'] = [];
    for (const c of candidates) {
      // Identifiers are opaque strings (ID-OPAQUE-STRING): a number is not a task id.
      if (typeof c.value !== 'string' || c.value === '') {
        tried.push(c);
        continue;
      }
      // The same id in two places (a body field and a Location header) is asked about once.
      if (tried.some((t) => t.value === c.value && t.confirmation)) continue;
      const confirmation = await this.call({
        method: 'GET',
        path: `/v1/tasks/${encodeURIComponent(c.value)}`,
        ...(lane ? { lane } : {}),
      });
      tried.push({ ...c, confirmation });
      if (isSuccess(confirmation))
        return { id: c.value, location: c.location, declared: !!declared, confirmation, tried };
    }
    const summary = tried.length
      ? tried
          .map(
            (t) =>
              `${describeLocation(t.location)}=${JSON.stringify(t.value)}${t.confirmation ? ` (GET /v1/tasks/… → ${statusText(t.confirmation)})` : ''}`
          )
          .join('; ')
      : 'no candidate field or header';
    const err = new Unavailable(
      declared
        ? `no task id at the declared ${describeLocation(declared)}: ${summary}`
        : `no task id found in the response: ${summary}`
    );
    (err as Unavailable & { tried?: FoundTask['tried'] }).tried = tried;
    throw err;
  }

  /** Polls under way, per task: checks that wait for the same task share one poller (two in lockstep would each see half its reads). */
  private readonly polling = new Map<string, Promise<TaskOutcome>>();

  /** Polls a task until it reaches a terminal state or the task timeout (target-seconds) passes. */
  async pollTask(taskId: string, lane?: string): Promise<TaskOutcome> {
    const under = this.polling.get(taskId);
    if (under) return under;
    const boundMs = (this.config.taskTimeoutSeconds * 1000) / this.config.timeScale;
    const outcome = this.waits.upTo(
      this.pollUntilDone(taskId, lane, Date.now() + boundMs),
      boundMs,
      `task ${taskId} to complete (${this.config.names.taskTimeout} ${this.config.taskTimeoutSeconds} s)`,
      'tasks'
    );
    this.polling.set(taskId, outcome);
    try {
      return await outcome;
    } finally {
      this.polling.delete(taskId);
    }
  }

  private async pollUntilDone(taskId: string, lane: string | undefined, deadline: number): Promise<TaskOutcome> {
    const polls: Exchange[] = [];
    const history: string[] = [];
    for (;;) {
      const ex = await this.call({
        method: 'GET',
        path: `/v1/tasks/${encodeURIComponent(taskId)}`,
        ...(lane ? { lane } : {}),
      });
      polls.push(ex);
      const state = readTaskState(ex.response?.json, this.declarations.task);
      if (state.value !== undefined && history[history.length - 1] !== state.value) history.push(state.value);
      if (state.terminal || !isSuccess(ex)) return { state, polls, timedOut: false, history };
      if (Date.now() >= deadline) return { state, polls, timedOut: true, history };
      const pause = pollIntervalMs(polls.length, this.config.timeScale);
      await sleep(pause);
      this.waits.record('task-polling', pause);
    }
  }

  readonly vmTaskOutcome = memo(async (): Promise<TaskOutcome> => this.pollTask((await this.vmTask()).id));

  /**
   * The created VM as the list shows it, once its task has finished: a walk of the whole list at the maximum page
   * size where that is cheap, else the run's tag filter or the ends of the list (see findInList).
   */
  readonly createdVmInList = memo(
    async (): Promise<{ walk: ListWalk; matches: Array<Record<string, unknown>>; outcome: TaskOutcome }> => {
      const vm = await this.acceptedVm();
      const outcome = await this.vmTaskOutcome();
      const { walk, matches } = await this.findInList([vm.name]);
      const id = matches[0]?.['id'];
      const entry = this.ledger.entries.find((e) => e.kind === 'vm' && e.name === vm.name);
      if (entry && typeof id === 'string') entry.id = id;
      return { walk, matches, outcome };
    }
  );

  /**
   * How long the list is, from its first page at the maximum page size (one read): a total-like count (declared, else
   * the largest integer named total or count), or the page itself when it is not full.
   */
  readonly listScale = memo(async (): Promise<ListScale> => {
    const first = await this.firstPage();
    const ex = await this.call({ method: 'GET', path: '/v1/vms', query: { page: first, per_page: 100 } });
    const items = vmsOf(ex).length;
    if (isSuccess(ex) && items < 100) return { size: items, large: false, whole: true, firstPage: ex };
    const declared = declaredTotalPointer(this.declarations.totalField);
    const candidates = declared ? [{ pointer: declared, value: readTotal(ex, declared) }] : totalCandidatesOf(ex);
    const counted = candidates.filter(
      (c): c is { pointer: string; value: number } =>
        typeof c.value === 'number' && Number.isInteger(c.value) && c.value >= items
    );
    const best = counted.sort((a, b) => b.value - a.value)[0];
    const large = best !== undefined && best.value > WHOLE_LIST_VMS;
    return {
      size: best?.value,
      pointer: best?.pointer,
      large,
      whole: !large || this.config.profile === 'certify',
      firstPage: ex,
    };
  });

  /**
   * The tag the run's own VMs carry and the filter finds them by: declared (x-tags-field), found by certify, or tried
   * on the run's VM and confirmed through the filter; undefined when tags cannot be set (or the filter does not find it).
   */
  readonly runTag = memo(async (): Promise<RunTag | undefined> => {
    const vm = await this.vm();
    if (!vm.accepted || !vm.tags?.[RUN_TAG_KEY]) return undefined;
    const value = vm.tags[RUN_TAG_KEY]!;
    if (this.declarations.tagsField)
      return { field: this.declarations.tagsField, key: RUN_TAG_KEY, value, how: 'declared' };
    if (this.foundTags && !this.tentativeTag)
      return { field: this.foundTags.field, key: RUN_TAG_KEY, value, how: 'certify' };
    // Tried, not known: the filter must find the VM (once its task is over, as a list shows it) to count as set.
    await this.vmTaskOutcome().catch(() => undefined);
    const found = await this.call({
      method: 'GET',
      path: '/v1/vms',
      query: { tag: `${RUN_TAG_KEY}:${value}`, per_page: 100 },
    });
    return vmsOf(found).some((v) => v['name'] === vm.name)
      ? { field: 'tags', key: RUN_TAG_KEY, value, how: 'discovered' }
      : undefined;
  });

  /**
   * VMs the run created, found by name as the list shows them: in a walk of the whole list where that is cheap (and
   * always in certify); else under the run's tag filter; else on the list's first and last pages (where a list ordered
   * by creation puts a new VM), through its total. `as`: whose view of the list (another key of the organization).
   */
  async findInList(
    names: readonly string[],
    as: KeyName = 'primary'
  ): Promise<{ walk: ListWalk; matches: Array<Record<string, unknown>> }> {
    const pick = (walk: ListWalk) => ({
      walk,
      matches: walk.items.filter((item) => names.includes(String(item['name']))),
    });
    const scale = await this.listScale();
    if (scale.whole) return pick(await this.walkAs(as, 100));
    const tag = await this.runTag();
    if (tag) {
      const walk = await this.walkAs(as, 100, { tag: `${tag.key}:${tag.value}` });
      return pick({
        ...walk,
        scope: `the run's VMs under tag=${tag.key}:${tag.value} (${tag.how}; the list holds ${scale.size} VMs)`,
      });
    }
    return pick(await this.listEnds(as, scale));
  }

  /** The first and the last two pages at the maximum page size, through the list's total: where a list ordered by creation puts the newest VMs. */
  private async listEnds(as: KeyName, scale: ListScale): Promise<ListWalk> {
    const first = await this.firstPage();
    const pages: Exchange[] = [];
    const items: Array<Record<string, unknown>> = [];
    const read = async (page: number) => {
      const ex = await this.call({ as, method: 'GET', path: '/v1/vms', query: { page, per_page: 100 } });
      pages.push(ex);
      if (isSuccess(ex)) items.push(...vmsOf(ex));
      return ex;
    };
    const head = await read(first);
    // The total again, as this key sees it now (VMs may have been created since the scale was read).
    const total = scale.pointer ? readTotal(head, scale.pointer) : scale.size;
    const last = first + Math.max(0, Math.ceil((typeof total === 'number' ? total : 0) / 100) - 1);
    for (const page of [last - 1, last, last + 1]) if (page > first) await read(page);
    const ok = pages.every((p) => isSuccess(p) || pages.indexOf(p) === pages.length - 1);
    return {
      perPage: 100,
      firstPage: first,
      pages,
      items,
      complete: ok,
      stoppedBecause: ok
        ? 'read the first and last pages'
        : `a page answered ${statusText(pages.find((p) => !isSuccess(p))!)}`,
      capped: false,
      moved: false,
      scope: `the first and the last pages of a list of ${String(total)} VMs (where a list ordered by creation puts a new VM)`,
    };
  }

  /** The id of the VM this run created; dependent checks are skipped when it cannot be learned. */
  async createdVmId(): Promise<string> {
    const { walk, matches, outcome } = await this.createdVmInList();
    if (outcome.state.success === false)
      throw new Unavailable(
        `the created VM's task ended in ${outcome.state.value}`,
        `a create that succeeds (check ${this.config.names.image} and ${this.config.names.subnetId})`
      );
    const id = matches[0]?.['id'];
    if (matches.length !== 1 || typeof id !== 'string')
      throw new Unavailable(
        `the created VM could not be found once in the list (${matches.length} matches${walk.scope ? ` among ${walk.scope}` : ''})`,
        'a created VM the list shows (see vms.created-listed)'
      );
    return id;
  }

  /**
   * Which page number comes first: declared, or told apart by asking for page 0 and page 1. Counting from 0, page 1
   * holds other VMs than page 0; counting from 1, a target that serves page 0 serves page 1 again (less at most the
   * VM or two that appeared in between, so "the same" means mostly the same).
   */
  readonly firstPage = memo(async (): Promise<number> => {
    if (this.declarations.firstPage !== undefined) return this.declarations.firstPage;
    const zero = await this.call({ method: 'GET', path: '/v1/vms', query: { page: 0, per_page: 5 } });
    if (!isSuccess(zero)) return 1;
    const one = await this.call({ method: 'GET', path: '/v1/vms', query: { page: 1, per_page: 5 } });
    const ids = (ex: Exchange) => vmsOf(ex).map((v) => JSON.stringify(v['id']));
    const onZero = ids(zero);
    const shared = ids(one).filter((id) => onZero.includes(id)).length;
    return onZero.length > 0 && shared * 2 < onZero.length ? 0 : 1;
  });

  /** Walks every page of the VM list at the given page size. */
  async walk(perPage: number, query: Record<string, string> = {}): Promise<ListWalk> {
    return this.walkAs('primary', perPage, query);
  }

  /**
   * The same walk with another key's token (the second organization's view of the list). The seed promises no
   * snapshot: VMs appear while a list is walked (a create whose task ends, on a target that lists a VM once it is
   * ready), and pages shift under the walk. So a complete walk reads its first page again; when that changed, the
   * list moved under it, and it is walked again once the run's own creates have had time to settle. A list that
   * never holds still is returned as walked (moved), for the checks to judge.
   */
  async walkAs(as: KeyName, perPage: number, query: Record<string, string> = {}): Promise<ListWalk> {
    const whole = Object.keys(query).length === 0 && as === 'primary';
    const size = whole ? fitPerPage(perPage, this.knownSize, this.maxWalkPages()) : perPage;
    let walk = await this.walkOnce(as, size, query);
    for (const wait of SETTLE_WAITS_SECONDS) {
      if (!walk.complete || !walk.moved) break;
      await this.waits.sleep(
        (wait * 1000) / this.config.timeScale,
        'the VM list to hold still (it changed while it was walked)',
        'lists',
        'list-settle'
      );
      walk = await this.walkOnce(as, size, query);
    }
    if (whole && walk.complete) this.knownSize = walk.items.length;
    return walk;
  }

  /** The most pages a walk reads: certify walks a long list whole, within its read budget. */
  private maxWalkPages(): number {
    return this.config.profile === 'certify' ? CERTIFY_MAX_WALK_PAGES : MAX_WALK_PAGES;
  }

  /**
   * The first `count` VMs of the whole list, page by page at `perPage` (a list too long to walk whole is judged on a
   * prefix): complete when the prefix was read, or the list ended before it.
   */
  async walkPrefix(perPage: number, count: number): Promise<ListWalk> {
    const walk = await this.walkOnce('primary', perPage, {}, count);
    return { ...walk, scope: `the first ${walk.items.length} VMs of the list` };
  }

  private async walkOnce(
    as: KeyName,
    perPage: number,
    query: Record<string, string>,
    prefix?: number
  ): Promise<ListWalk> {
    const firstPage = await this.firstPage();
    const pages: Exchange[] = [];
    const items: Array<Record<string, unknown>> = [];
    const maxPages = this.maxWalkPages();
    // Pages the first page's total says exist are read ahead, a few at a time, so a distant target costs one round trip
    // per few pages; the walk still reads them in order and stops where it would have stopped.
    const ahead = new Map<number, Promise<Exchange>>();
    const read = (page: number) =>
      ahead.get(page) ??
      this.call({ as, method: 'GET', path: '/v1/vms', query: { ...query, page, per_page: perPage } });
    let lastByTotal = firstPage;
    const readAhead = (page: number) => {
      const until = Math.min(page + READ_AHEAD_PAGES, lastByTotal + 1, firstPage + maxPages - 1);
      for (let p = page + 1; p <= until; p++) if (!ahead.has(p)) ahead.set(p, read(p));
    };
    const finish = async (walk: ListWalk): Promise<ListWalk> => {
      // Pages read ahead past where the walk stopped are let finish (their answers are in the run's log).
      await Promise.allSettled(ahead.values());
      return walk;
    };
    const done = (complete: boolean, stoppedBecause: string, capped = false): Promise<ListWalk> =>
      finish({ perPage, firstPage, pages, items, complete, stoppedBecause, capped, moved: false });
    for (let page = firstPage; page < firstPage + maxPages; page++) {
      const ex = await read(page);
      pages.push(ex);
      if (page === firstPage && isSuccess(ex)) {
        const total = Math.max(0, ...totalCandidatesOf(ex).map((c) => c.value));
        const wanted = prefix !== undefined ? Math.min(total || prefix, prefix) : total;
        lastByTotal = firstPage + Math.max(0, Math.ceil(wanted / perPage) - 1);
      }
      readAhead(page);
      if (!isSuccess(ex)) {
        // A target may refuse a page past the last one (404, 400): after a full page, that is the end if the totals say
        // every item was seen.
        if (page > firstPage && pastTheEnd(ex, pages[0]!, items.length))
          return done(
            true,
            `page ${page} answered ${statusText(ex)}: past the last page (the total says all ${items.length} were seen)`
          );
        return done(false, `page ${page} answered ${statusText(ex)}`);
      }
      const vms = vmsOf(ex);
      if (prefix !== undefined && items.length + vms.length >= prefix && vms.length === perPage) {
        items.push(...vms);
        return done(true, `read the first ${items.length} VMs`);
      }
      if (vms.length === 0 || vms.length < perPage) {
        items.push(...vms);
        const walk = await done(true, `page ${page} was ${vms.length === 0 ? 'empty' : 'short'}`);
        if (pages.length > 1) {
          // Read the first page again: the same ids and totals mean the list held still while it was walked.
          const again = await this.call({
            as,
            method: 'GET',
            path: '/v1/vms',
            query: { ...query, page: firstPage, per_page: perPage },
          });
          walk.moved = !isSuccess(again) || pageSignature(again) !== pageSignature(pages[0]!);
        }
        return walk;
      }
      items.push(...vms);
    }
    return done(
      false,
      `stopped after ${maxPages} pages at per_page=${perPage}: the list is longer than a bounded walk covers`,
      true
    );
  }
}

function errorCodeOf(ex: Exchange): unknown {
  return (ex.response?.json as { error?: { code?: unknown } } | undefined)?.error?.code;
}

/**
 * A refusal of a page past the last one: a 4xx for its content (not credentials or a rate limit) when no total-like
 * count on the first page says there are more than `offset` items.
 */
export function pastTheEnd(refused: Exchange, first: Exchange, offset: number): boolean {
  const status = refused.response?.status ?? 0;
  const totals = totalCandidatesOf(first).map((c) => c.value);
  return [400, 404, 416, 422].includes(status) && totals.length > 0 && Math.max(...totals) <= offset;
}

/** What must hold still between two reads of a page: its ids and every total-like count. */
function pageSignature(ex: Exchange): string {
  return JSON.stringify([vmsOf(ex).map((v) => v['id']), totalCandidatesOf(ex).map((c) => [c.pointer, c.value])]);
}

/** The vms array of a list response (elements that are not objects are dropped; list-shape reports them). */
export function vmsOf(ex: Exchange): Array<Record<string, unknown>> {
  const body = ex.response?.json as { vms?: unknown } | undefined;
  return Array.isArray(body?.vms)
    ? (body!.vms as unknown[]).filter((v): v is Record<string, unknown> => !!v && typeof v === 'object')
    : [];
}
