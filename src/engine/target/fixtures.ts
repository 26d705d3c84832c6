import { setTimeout as sleep } from 'node:timers/promises';
import type { Declarations, ValueLocation } from '../../spec/declarations.ts';
import type { RunConfig } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import type { Ledger } from './ledger.ts';
import type { KeyName } from '../config/config.ts';
import { Unavailable } from '../outcome/outcome.ts';
import { readLocation, readTaskState, taskIdCandidates, taskIdIn, totalCandidatesOf, describeLocation, type Candidate, type TaskState } from './discover.ts';
import { Waits } from '../transport/waits.ts';

export interface CreatedVm {
  name: string;
  body: Record<string, unknown>;
  tags?: Record<string, string>;
  exchange: Exchange;
  accepted: boolean;
  /** Every create sent for it, one per size tried (the last is `exchange`). */
  attempts: Exchange[];
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
}

type Call = (opts: CallOptions) => Promise<Exchange>;

export const MAX_WALK_PAGES = 60;
/** Walks of a list that changed under them are retried after these waits (target-seconds): the run's own creates settle. */
const SETTLE_WAITS_SECONDS = [2, 5, 15];

/** A page size at least `preferred` with which a list of `size` items fits in a bounded walk (at most 100). */
export function fitPerPage(preferred: number, size: number | undefined): number {
  if (!size) return preferred;
  return Math.min(100, Math.max(preferred, Math.ceil((size * 1.2) / (MAX_WALK_PAGES - 1))));
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** Polls of a task made at the quick pace: most tasks end within seconds, and waiting a whole second more costs the run. */
const QUICK_POLLS = 12;
const QUICK_POLL_MS = 250;

/** Real ms before the next poll of a task: a quarter second for the first few, then once a target-second. */
export function pollIntervalMs(pollsSoFar: number, timeScale: number): number {
  const cadence = Math.max(20, 1000 / timeScale);
  return pollsSoFar < QUICK_POLLS ? Math.min(QUICK_POLL_MS, cadence) : cadence;
}

/**
 * Shared state that several checks depend on (a created VM, its task, a walk of the list), made once per run
 * on first use. When it cannot be made, dependent checks are skipped with the reason.
 */
export class Fixtures {
  /** Items the last complete walk of the whole list found: later walks pick page sizes that fit their bound. */
  private knownSize: number | undefined;
  /** The sizes of the run's VMs: the smallest until a create tells otherwise. */
  private sizes = SIZE_LADDER[0]!;

  constructor(
    private readonly call: Call,
    private readonly config: RunConfig,
    private readonly declarations: Declarations,
    private readonly ledger: Ledger,
    private readonly waits: Waits = new Waits(),
  ) {}

  vmName(suffix: string): string {
    return `cc-${this.config.runId}-${suffix}`;
  }

  /** A create-VM request valid on the target, from --image and --subnet-id. */
  vmCreateBody(suffix: string): { body: Record<string, unknown>; tags?: Record<string, string> } {
    if (this.config.readOnly) throw new Unavailable('--read-only: it would create a VM', 'a run without --read-only');
    if (!this.config.image || !this.config.subnetId) {
      throw new Unavailable('needs --image and --subnet-id (values valid on the target for creating a VM)', '--image NAME --subnet-id ID (values valid on the target)');
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
    const attempts: Exchange[] = [];
    for (const sizes of SIZE_LADDER) {
      this.sizes = sizes;
      const { body, tags } = this.vmCreateBody('vm1');
      const exchange = await this.call({ method: 'POST', path: '/v1/vms', json: body });
      attempts.push(exchange);
      const accepted = isSuccess(exchange);
      if (accepted) this.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: exchange.sentBy });
      // Only a refusal of the request's content makes another size worth trying: not credentials, quota, rate or a 5xx.
      const status = exchange.response?.status ?? 0;
      const forContent = status >= 400 && status < 500 && ![401, 403, 404, 429].includes(status) && errorCodeOf(exchange) !== 'quota_exceeded';
      if (accepted || !forContent || sizes === SIZE_LADDER[SIZE_LADDER.length - 1]) return { name: String(body['name']), body, tags, exchange, accepted, attempts };
    }
    throw new Error('unreachable: the size ladder is not empty');
  });

  async acceptedVm(): Promise<CreatedVm> {
    const vm = await this.vm();
    if (!vm.accepted) throw new Unavailable(`creating a VM was refused (${statusText(vm.exchange)})`, 'a create-VM request the target accepts (check --image and --subnet-id, and the organization\'s quota)');
    return vm;
  }

  /** Finds the task id of the created VM: where the overlay declares it, else by trying every candidate. */
  readonly vmTask = memo(async (): Promise<FoundTask> => {
    const vm = await this.acceptedVm();
    return this.findTask(vm.exchange, this.declarations.taskIdOnCreateVm);
  });

  async findTask(ex: Exchange, declared?: ValueLocation, lane?: string): Promise<FoundTask> {
    // A declared header (Location) holds a path: the id is its last segment.
    const candidates: Candidate[] = declared ? [{ location: declared, value: taskIdIn(readLocation(ex, declared)) }] : taskIdCandidates(ex);
    const tried: FoundTask['tried'] = [];
    for (const c of candidates) {
      // Identifiers are opaque strings (ID-OPAQUE-STRING): a number is not a task id.
      if (typeof c.value !== 'string' || c.value === '') {
        tried.push(c);
        continue;
      }
      // The same id in two places (a body field and a Location header) is asked about once.
      if (tried.some((t) => t.value === c.value && t.confirmation)) continue;
      const confirmation = await this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(c.value)}`, ...(lane ? { lane } : {}) });
      tried.push({ ...c, confirmation });
      if (isSuccess(confirmation)) return { id: c.value, location: c.location, declared: !!declared, confirmation, tried };
    }
    const summary = tried.length
      ? tried.map((t) => `${describeLocation(t.location)}=${JSON.stringify(t.value)}${t.confirmation ? ` (GET /v1/tasks/… → ${statusText(t.confirmation)})` : ''}`).join('; ')
      : 'no candidate field or header';
    const err = new Unavailable(
      declared ? `no task id at the declared ${describeLocation(declared)}: ${summary}` : `no task id found in the response: ${summary}`,
    );
    (err as Unavailable & { tried?: FoundTask['tried'] }).tried = tried;
    throw err;
  }

  /** Polls a task until it reaches a terminal state or the task timeout (target-seconds) passes. */
  async pollTask(taskId: string, lane?: string): Promise<TaskOutcome> {
    const boundMs = (this.config.taskTimeoutSeconds * 1000) / this.config.timeScale;
    return this.waits.upTo(this.pollUntilDone(taskId, lane, Date.now() + boundMs), boundMs, `task ${taskId} to complete (--task-timeout ${this.config.taskTimeoutSeconds} s)`, 'tasks');
  }

  private async pollUntilDone(taskId: string, lane: string | undefined, deadline: number): Promise<TaskOutcome> {
    const polls: Exchange[] = [];
    const history: string[] = [];
    for (;;) {
      const ex = await this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(taskId)}`, ...(lane ? { lane } : {}) });
      polls.push(ex);
      const state = readTaskState(ex.response?.json, this.declarations.task);
      if (state.value !== undefined && history[history.length - 1] !== state.value) history.push(state.value);
      if (state.terminal || !isSuccess(ex)) return { state, polls, timedOut: false, history };
      if (Date.now() >= deadline) return { state, polls, timedOut: true, history };
      await sleep(pollIntervalMs(polls.length, this.config.timeScale));
    }
  }

  readonly vmTaskOutcome = memo(async (): Promise<TaskOutcome> => this.pollTask((await this.vmTask()).id));

  /** The created VM as the list shows it, once its task has finished (a full walk at the maximum page size). */
  readonly createdVmInList = memo(async (): Promise<{ walk: ListWalk; matches: Array<Record<string, unknown>>; outcome: TaskOutcome }> => {
    const vm = await this.acceptedVm();
    const outcome = await this.vmTaskOutcome();
    const walk = await this.walk(100);
    const matches = walk.items.filter((item) => item['name'] === vm.name);
    const id = matches[0]?.['id'];
    const entry = this.ledger.entries.find((e) => e.kind === 'vm' && e.name === vm.name);
    if (entry && typeof id === 'string') entry.id = id;
    return { walk, matches, outcome };
  });

  /** The id of the VM this run created; dependent checks are skipped when it cannot be learned. */
  async createdVmId(): Promise<string> {
    const { matches, outcome } = await this.createdVmInList();
    if (outcome.state.success === false) throw new Unavailable(`the created VM's task ended in ${outcome.state.value}`, 'a create that succeeds (check --image and --subnet-id)');
    const id = matches[0]?.['id'];
    if (matches.length !== 1 || typeof id !== 'string') throw new Unavailable(`the created VM could not be found once in the list (${matches.length} matches)`, 'a created VM the list shows (see vms.created-listed)');
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
    const size = whole ? fitPerPage(perPage, this.knownSize) : perPage;
    let walk = await this.walkOnce(as, size, query);
    for (const wait of SETTLE_WAITS_SECONDS) {
      if (!walk.complete || !walk.moved) break;
      await this.waits.sleep((wait * 1000) / this.config.timeScale, 'the VM list to hold still (it changed while it was walked)', 'lists');
      walk = await this.walkOnce(as, size, query);
    }
    if (whole && walk.complete) this.knownSize = walk.items.length;
    return walk;
  }

  private async walkOnce(as: KeyName, perPage: number, query: Record<string, string>): Promise<ListWalk> {
    const firstPage = await this.firstPage();
    const pages: Exchange[] = [];
    const items: Array<Record<string, unknown>> = [];
    const done = (complete: boolean, stoppedBecause: string, capped = false): ListWalk => ({ perPage, firstPage, pages, items, complete, stoppedBecause, capped, moved: false });
    for (let page = firstPage; page < firstPage + MAX_WALK_PAGES; page++) {
      const ex = await this.call({ as, method: 'GET', path: '/v1/vms', query: { ...query, page, per_page: perPage } });
      pages.push(ex);
      if (!isSuccess(ex)) {
        // A target may refuse a page past the last one (404, 400): after a full page, that is the end if the totals say
        // every item was seen.
        if (page > firstPage && pastTheEnd(ex, pages[0]!, items.length)) return done(true, `page ${page} answered ${statusText(ex)}: past the last page (the total says all ${items.length} were seen)`);
        return done(false, `page ${page} answered ${statusText(ex)}`);
      }
      const vms = vmsOf(ex);
      if (vms.length === 0 || vms.length < perPage) {
        const walk = done(true, `page ${page} was ${vms.length === 0 ? 'empty' : 'short'}`);
        items.push(...vms);
        if (pages.length > 1) {
          // Read the first page again: the same ids and totals mean the list held still while it was walked.
          const again = await this.call({ as, method: 'GET', path: '/v1/vms', query: { ...query, page: firstPage, per_page: perPage } });
          walk.moved = !isSuccess(again) || pageSignature(again) !== pageSignature(pages[0]!);
        }
        return walk;
      }
      items.push(...vms);
    }
    return done(false, `stopped after ${MAX_WALK_PAGES} pages at per_page=${perPage}: the list is longer than a bounded walk covers`, true);
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
  return Array.isArray(body?.vms) ? (body!.vms as unknown[]).filter((v): v is Record<string, unknown> => !!v && typeof v === 'object') : [];
}
