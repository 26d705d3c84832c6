import { setTimeout as sleep } from 'node:timers/promises';
import type { Declarations, ValueLocation } from '../../spec/declarations.ts';
import { taskTimeoutRealMs, type RunConfig } from '../config/config.ts';
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
  readTags,
  tagFieldCandidates,
  tagsInShape,
  TAG_SHAPES,
  type Candidate,
  type TagFieldCandidate,
  type TagShape,
} from './discover.ts';
import { Waits } from '../transport/waits.ts';
import { inputRefusalOf, type InputRefusal, type KeyFacts } from './input-refusal.ts';
import {
  completionOf,
  taskOfRequest,
  type AcceptedRequest,
  type FoundTask,
  type RequestTask,
  type RequestTaskDeps,
  type TaskOutcome,
  type TaskReader,
} from './request-tasks.ts';

export type { FoundTask, TaskOutcome };

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
interface ListScale {
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
interface RunTag {
  field: string;
  /** How the create body carried it (a declared field takes a map). */
  shape: TagShape;
  key: string;
  value: string;
  how: 'declared' | 'certify' | 'discovered';
}

/**
 * Where one key's view of the VM records keeps their tags: declared (x-tags-field); confirmed by the filter (a pair a
 * record shows under the field returns that record and leaves out a record without it); the conventional `tags`,
 * where records show pairs there that no filter confirmed; or a field named for tags that is empty everywhere, a place
 * to set them. The seed says VMs carry tags, not under which name nor in which shape.
 */
export interface TagField {
  field: string;
  /** How records show it; undefined where every record holds an empty list there. */
  shape?: TagShape;
  how: 'declared' | 'confirmed' | 'convention' | 'empty';
  /** The filtered read that confirmed it. */
  evidence?: Exchange;
}

/** Candidate fields a key's view is asked about through the filter, at most (each costs a read). */
const MAX_TAG_FIELD_PROBES = 3;

type Call = (opts: CallOptions) => Promise<Exchange>;

export const MAX_WALK_PAGES = 60;
/** The most pages certify walks of the whole list (at per_page 100: 40,000 VMs), within its read budget. */
export const CERTIFY_MAX_WALK_PAGES = 400;
/** Lists longer than this are not walked whole in the quick and full profiles (see ListScale). */
const WHOLE_LIST_VMS = 1000;
/** The tag key of the run's own VMs (its value is the run id). */
export const RUN_TAG_KEY = 'cc-run';
/** Pages a walk reads ahead of the one it is judging, where the first page's total says they exist. */
const READ_AHEAD_PAGES = 3;
/** Reads of pages 0 and 1 that try to tell the first page number, and the page size they read at. */
const FIRST_PAGE_TRIES = 3;
const FIRST_PAGE_SIZE = 20;
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

export { TAG_SHAPES, tagsInShape, type TagShape };

/** Real ms before the next poll of a task: a quarter second for the first few, then once a target-second. */
function pollIntervalMs(pollsSoFar: number, timeScale: number): number {
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
  /** The run's own input the target refused on the run's first create (the run then stops: a usage error). */
  inputRefused?: InputRefusal;
  /** What the token answers say of the keys (role, organization), asked only when a create was refused. */
  keyFacts: () => Promise<KeyFacts> = () => Promise.resolve({});

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

  /** Names the run has given a create so far: a target may require names unique in the organization. */
  private readonly namesGiven = new Set<string>();

  /** The name, or where the run gave it before, the name with a counter (-2, -3, …): every create's name its own. */
  uniqueName(name: string): string {
    let unique = name;
    for (let n = 2; this.namesGiven.has(unique); n++) unique = `${name}-${n}`;
    this.namesGiven.add(unique);
    return unique;
  }

  /** Bodies whose name is their own already (made by vmCreateBody, or passed through withOwnName). */
  private readonly ownNamed = new WeakSet<object>();

  /**
   * A create body under a name of its own: one of the run's names (cc-<run id>-…) it was given before gets a counter.
   * Generated bodies share names (a base kept, a tail drawn twice), and a target may require them unique.
   */
  withOwnName(body: unknown): unknown {
    if (!body || typeof body !== 'object' || Array.isArray(body) || this.ownNamed.has(body)) return body;
    const name = (body as { name?: unknown }).name;
    if (typeof name !== 'string' || !name.startsWith(`cc-${this.config.runId}-`)) return body;
    const own = this.uniqueName(name);
    const named = own === name ? body : { ...body, name: own };
    this.ownNamed.add(named);
    return named;
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
      name: this.uniqueName(this.vmName(suffix)),
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
    this.ownNamed.add(body);
    return { body, tags };
  }

  /** The run's VM, made once: when every create is refused for one of the run's own inputs, inputRefused says so. */
  readonly vm = memo(async (): Promise<CreatedVm> => {
    this.vmAsked = true;
    const vm = await this.createRunVm();
    if (!vm.accepted) this.inputRefused = await inputRefusalOf(vm.attempts, this.config, this.keyFacts);
    return vm;
  });

  private async createRunVm(): Promise<CreatedVm> {
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
          // Where the records keep tags (the field and shape they show), else a map under "tags".
          this.tentativePlace ??= await this.tagPlace();
          tags = { [RUN_TAG_KEY]: this.config.runId };
          body[this.tentativePlace.field] = tagsInShape(this.tentativePlace.shape, Object.entries(tags));
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
          this.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: exchange.sentBy }, exchange);
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
  }

  /** True once a check has asked for the run's VM (made it, or tried to). */
  private vmAsked = false;

  /** The run's VM id where a check made the VM (none is made here), for the reads of the run's own objects. */
  async madeVmId(): Promise<string | undefined> {
    if (!this.vmAsked) return undefined;
    return this.createdVmId().catch((err: unknown) => (err instanceof Unavailable ? undefined : Promise.reject(err)));
  }

  /** True when the run's VM carries the run's tag only tentatively (nobody declared how tags are set). */
  private tentativeTag = false;
  /** Where the tentative tag was put. */
  private tentativePlace?: { field: string; shape: TagShape };

  /** Where to try setting a tag: the field the records keep tags in, in the shape they show; else a map under "tags". */
  private async tagPlace(): Promise<{ field: string; shape: TagShape }> {
    const found = await this.tagField();
    return { field: found?.field ?? 'tags', shape: found?.shape ?? 'map' };
  }

  private readonly tagFields = new Map<KeyName, Promise<TagField | undefined>>();

  /** Where this key's view of the records keeps the VMs' tags (see TagField), found once per key. */
  tagField(as: KeyName = 'primary'): Promise<TagField | undefined> {
    let found = this.tagFields.get(as);
    if (!found) this.tagFields.set(as, (found = this.findTagField(as)));
    return found;
  }

  private async findTagField(as: KeyName): Promise<TagField | undefined> {
    const declared = this.declarations.tagsField;
    if (declared) return { field: declared, shape: 'map', how: 'declared' };
    const page =
      as === 'primary'
        ? (await this.listScale()).firstPage
        : await this.call({
            as,
            method: 'GET',
            path: '/v1/vms',
            query: { page: await this.firstPage(), per_page: 100 },
          });
    const records = vmsOf(page);
    const candidates = tagFieldCandidates(records);
    for (const c of candidates.filter((x) => x.carriers.length > 0).slice(0, MAX_TAG_FIELD_PROBES)) {
      const evidence = await this.confirmTagField(as, c, records);
      if (evidence) return { field: c.field, shape: c.shape, how: 'confirmed', evidence };
    }
    // Unconfirmed (a filter that is not applied confirms nothing): pairs under "tags" are read as tags by convention.
    const tags = candidates.find((c) => c.field === 'tags' && c.carriers.length > 0);
    if (tags) return { field: 'tags', shape: tags.shape, how: 'convention' };
    const empty = candidates.find((c) => c.carriers.length === 0);
    return empty && { field: empty.field, shape: empty.shape, how: 'empty' };
  }

  /**
   * The filter by the pair the fewest records show under the field must return a record that shows it and leave out
   * every record of the page that does not: then the field holds what the filter matches.
   */
  private async confirmTagField(
    as: KeyName,
    c: TagFieldCandidate,
    records: ReadonlyArray<Record<string, unknown>>
  ): Promise<Exchange | undefined> {
    const counts = new Map<string, number>();
    for (const { pairs } of c.carriers)
      for (const pair of pairs)
        if (pair[0] && !pair[0].includes(':'))
          counts.set(JSON.stringify(pair), (counts.get(JSON.stringify(pair)) ?? 0) + 1);
    const rarest = [...counts].sort((a, b) => a[1] - b[1])[0];
    if (!rarest) return undefined;
    const [k, v] = JSON.parse(rarest[0]) as [string, string];
    const ex = await this.call({ as, method: 'GET', path: '/v1/vms', query: { tag: `${k}:${v}`, per_page: 100 } });
    if (!isSuccess(ex)) return undefined;
    const got = new Set(vmsOf(ex).map((r) => JSON.stringify(r['id'])));
    const carries = (r: Record<string, unknown>) =>
      readTags(r[c.field])?.pairs.some(([kk, vv]) => kk === k && vv === v) ?? false;
    const returned = records.some((r) => carries(r) && got.has(JSON.stringify(r['id'])));
    const leftOut = records.every((r) => carries(r) || !got.has(JSON.stringify(r['id'])));
    return returned && leftOut ? ex : undefined;
  }

  async acceptedVm(): Promise<CreatedVm> {
    const vm = await this.vm();
    if (this.inputRefused) throw new Unavailable(`the run stopped: ${this.inputRefused.message}`);
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

  async findTask(ex: Exchange, declared?: ValueLocation, by: TaskReader = {}): Promise<FoundTask> {
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
      const confirmation = await this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(c.value)}`, ...by });
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

  /**
   * Polls a task until it reaches a terminal state or the task timeout (target-seconds) passes: from now, or until
   * `deadline` (epoch ms) where the timeout ran from the request that started the task (at least one poll either way).
   */
  async pollTask(taskId: string, by: TaskReader & { deadline?: number } = {}): Promise<TaskOutcome> {
    const under = this.polling.get(taskId);
    if (under) return under;
    const { deadline, ...reader } = by;
    const boundMs = Math.max(0, deadline !== undefined ? deadline - Date.now() : taskTimeoutRealMs(this.config));
    const outcome = this.waits.upTo(
      this.pollUntilDone(taskId, reader, Date.now() + boundMs),
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

  private async pollUntilDone(taskId: string, by: TaskReader, deadline: number): Promise<TaskOutcome> {
    const polls: Exchange[] = [];
    const history: string[] = [];
    for (;;) {
      const ex = await this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(taskId)}`, ...by });
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

  /** Per VM: the end of the run's last long-running operation started there (see onVm). */
  private readonly vmQueues = new Map<string, Promise<void>>();
  /** Per VM: until when (real ms) an operation of the run whose end could not be observed may still run there. */
  private readonly vmUnobservedUntil = new Map<string, number>();

  /** The task timeout in real milliseconds. */
  private taskBoundMs(): number {
    return taskTimeoutRealMs(this.config);
  }

  /**
   * A long-running operation of the run on a VM (a backup of it, a restore onto it), sent once the run's previous one
   * there has ended. A target may run one operation per VM at a time and refuse another meanwhile (409): a refusal the
   * run caused by overlapping its own operations says nothing of the target. The task the answer names is polled to its
   * end in the background (the next operation waits for that); where that end cannot be observed (no task found, or
   * not ended within the task timeout), a 409 on the VM is waited out and the request sent again, up to the timeout.
   */
  async onVm(vmId: string, send: () => Promise<Exchange>, taskAt?: ValueLocation): Promise<Exchange> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const before = this.vmQueues.get(vmId) ?? Promise.resolve();
    this.vmQueues.set(
      vmId,
      before.then(() => mine)
    );
    // Each earlier operation's wait is bounded by its own task's poll (the task timeout), so this wait is too.
    await this.waits.upTo(before, this.taskBoundMs(), `the run's earlier operations on VM ${vmId} to end`, 'tasks');
    let ex: Exchange;
    try {
      ex = await this.sendPastOwnConflicts(vmId, send);
    } catch (err) {
      release();
      throw err;
    }
    if (!isSuccess(ex)) release();
    else void this.followToEnd(vmId, ex, taskAt).finally(release);
    return ex;
  }

  /** Sends, and again after a wait while a 409 may be the run's own operation on the VM, still running unobserved. */
  private async sendPastOwnConflicts(vmId: string, send: () => Promise<Exchange>): Promise<Exchange> {
    let ex = await send();
    for (let wait = 1; ex.response?.status === 409 && Date.now() < (this.vmUnobservedUntil.get(vmId) ?? 0);) {
      await this.waits.sleep(
        (wait * 1000) / this.config.timeScale,
        `the run's earlier operation on VM ${vmId} to end (answered 409)`,
        'tasks',
        'task-polling'
      );
      wait = Math.min(wait * 2, 30);
      ex = await send();
    }
    return ex;
  }

  /** Polls the task an accepted operation names to its end; where it cannot, the VM may stay busy up to the timeout. */
  private async followToEnd(vmId: string, ex: Exchange, taskAt: ValueLocation | undefined): Promise<void> {
    const until = Date.now() + this.taskBoundMs();
    try {
      const outcome = await this.pollTask((await this.findTask(ex, taskAt)).id);
      if (outcome.state.terminal) return;
    } catch {
      // No task to follow (or the poll broke): its end cannot be observed.
    }
    this.vmUnobservedUntil.set(vmId, Math.max(until, this.vmUnobservedUntil.get(vmId) ?? 0));
  }

  readonly vmTaskOutcome = memo(async (): Promise<TaskOutcome> => this.pollTask((await this.vmTask()).id));

  /** The tasks of accepted requests, judged once per request (by seq) for every check that reviews them. */
  private readonly requestTasks = new Map<number, Promise<RequestTask>>();
  private readonly requestCompletions = new Map<number, Promise<TaskOutcome & { sent: number }>>();

  private requestTaskDeps(): RequestTaskDeps {
    return {
      poll: (id, by) => this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(id)}`, ...by }),
      findTask: (ex, declared, by) => this.findTask(ex, declared, by),
      pollTask: (id, by) => this.pollTask(id, by),
      task: this.declarations.task,
      timeoutMs: taskTimeoutRealMs(this.config),
    };
  }

  /** The task an accepted request of a long-running operation named, confirmed by a poll (the log's first). */
  taskOfRequest(req: AcceptedRequest, log: readonly Exchange[]): Promise<RequestTask> {
    const seq = req.exchange.seq;
    let p = this.requestTasks.get(seq);
    if (!p) this.requestTasks.set(seq, (p = taskOfRequest(this.requestTaskDeps(), log, req)));
    return p;
  }

  /** How that task ended: terminal in the log already, else polled until the task timeout from its request. */
  async completionOfRequest(
    req: AcceptedRequest,
    log: readonly Exchange[]
  ): Promise<(TaskOutcome & { sent: number }) | undefined> {
    const task = await this.taskOfRequest(req, log);
    if (task.kind !== 'confirmed') return undefined;
    const seq = req.exchange.seq;
    let p = this.requestCompletions.get(seq);
    if (!p) this.requestCompletions.set(seq, (p = completionOf(this.requestTaskDeps(), log, req, task)));
    return p;
  }

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
      return { field: this.declarations.tagsField, shape: 'map', key: RUN_TAG_KEY, value, how: 'declared' };
    if (this.foundTags && !this.tentativeTag) return { ...this.foundTags, key: RUN_TAG_KEY, value, how: 'certify' };
    const place = this.tentativePlace ?? { field: 'tags', shape: 'map' as const };
    // Tried, not known: the filter must find the VM (once its task is over, as a list shows it) to count as set.
    await this.vmTaskOutcome().catch(() => undefined);
    const found = await this.call({
      method: 'GET',
      path: '/v1/vms',
      query: { tag: `${RUN_TAG_KEY}:${value}`, per_page: 100 },
    });
    return vmsOf(found).some((v) => v['name'] === vm.name)
      ? { ...place, key: RUN_TAG_KEY, value, how: 'discovered' }
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
   * holds other VMs than page 0; counting from 1, a target refuses page 0, answers it empty, or serves page 1 again.
   * The list may move meanwhile (a newest-first list shifts by every VM created), so page 0 is read again after page 1:
   * only a comparison the list held still for decides, tried a few times; an empty list decides nothing, and is asked
   * again by the next caller.
   */
  firstPage(): Promise<number> {
    if (this.declarations.firstPage !== undefined) return Promise.resolve(this.declarations.firstPage);
    return (this.firstPageFound ??= this.detectFirstPage().then((found) => {
      if (found.undecided) this.firstPageFound = undefined;
      return found.page;
    }));
  }

  private firstPageFound?: Promise<number>;

  private async detectFirstPage(): Promise<{ page: number; undecided?: boolean }> {
    const read = (page: number) =>
      this.call({ method: 'GET', path: '/v1/vms', query: { page, per_page: FIRST_PAGE_SIZE } });
    const ids = (ex: Exchange) => vmsOf(ex).map((v) => JSON.stringify(v['id']));
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((id, i) => id === b[i]);
    for (let attempt = 0; attempt < FIRST_PAGE_TRIES; attempt++) {
      if (attempt > 0)
        await this.waits.sleep(
          (SETTLE_WAITS_SECONDS[0]! * 1000) / this.config.timeScale,
          'the VM list to hold still (to tell its first page number)',
          'lists',
          'list-settle'
        );
      const zero = await read(0);
      if (!isSuccess(zero)) return { page: 1 };
      const one = await read(1);
      const again = await read(0);
      const [z, o] = [ids(zero), ids(one)];
      const still = isSuccess(again) && same(z, ids(again));
      if (still && z.length === 0) return o.length ? { page: 1 } : { page: 1, undecided: true };
      if (still && same(z, o)) return { page: 1 };
      // How far each VM on both pages moved from page 0 to page 1: by the VMs made or deleted in between when page 0
      // is page 1 again, by a whole page less that when page 1 is the second page.
      const moved = o.flatMap((id, i) => (z.includes(id) ? [i - z.indexOf(id)] : [])).sort((a, b) => a - b);
      if (still && moved.length === 0) return { page: 0 };
      if (moved.length) return { page: moved[moved.length >> 1]! > -FIRST_PAGE_SIZE / 2 ? 1 : 0 };
    }
    return { page: 1, undecided: true };
  }

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
