import { setTimeout as sleep } from 'node:timers/promises';
import type { Declarations, ValueLocation } from '../spec/declarations.ts';
import type { RunConfig } from './config.ts';
import type { CallOptions } from './context.ts';
import type { Exchange } from './exchange.ts';
import { isSuccess, statusText } from './exchange.ts';
import type { Ledger } from './ledger.ts';
import type { KeyName } from './tokens.ts';
import { Unavailable } from './check.ts';
import { readLocation, readTaskState, taskIdCandidates, describeLocation, type Candidate, type TaskState } from './discover.ts';
import type { CertifyPreparation } from './certify.ts';

export interface CreatedVm {
  name: string;
  body: Record<string, unknown>;
  tags?: Record<string, string>;
  exchange: Exchange;
  accepted: boolean;
}

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
}

type Call = (opts: CallOptions) => Promise<Exchange>;

const MAX_WALK_PAGES = 60;

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/**
 * Shared state that several checks depend on (a created VM, its task, a walk of the list), made once per run
 * on first use. When it cannot be made, dependent checks are skipped with the reason.
 */
export class Fixtures {
  /** What the certify profile prepared before the checks (tag shape, a filled list); undefined in the other profiles. */
  certify?: CertifyPreparation;

  constructor(
    private readonly call: Call,
    private readonly config: RunConfig,
    private readonly declarations: Declarations,
    private readonly ledger: Ledger,
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
      vcpus: 1,
      memory_gb: 1,
      image: this.config.image,
      system_disk_gb: 20,
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
    const { body, tags } = this.vmCreateBody('vm1');
    const exchange = await this.call({ method: 'POST', path: '/v1/vms', json: body });
    const accepted = isSuccess(exchange);
    if (accepted) this.ledger.record({ kind: 'vm', name: String(body['name']), createdBy: exchange.sentBy });
    return { name: String(body['name']), body, tags, exchange, accepted };
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
    const candidates: Candidate[] = declared ? [{ location: declared, value: readLocation(ex, declared) }] : taskIdCandidates(ex);
    const tried: FoundTask['tried'] = [];
    for (const c of candidates) {
      // Identifiers are opaque strings (ID-OPAQUE-STRING): a number is not a task id.
      if (typeof c.value !== 'string' || c.value === '') {
        tried.push(c);
        continue;
      }
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
    const scale = this.config.timeScale;
    const deadline = Date.now() + (this.config.taskTimeoutSeconds * 1000) / scale;
    const intervalMs = Math.max(20, 1000 / scale);
    const polls: Exchange[] = [];
    const history: string[] = [];
    for (;;) {
      const ex = await this.call({ method: 'GET', path: `/v1/tasks/${encodeURIComponent(taskId)}`, ...(lane ? { lane } : {}) });
      polls.push(ex);
      const state = readTaskState(ex.response?.json, this.declarations.task);
      if (state.value !== undefined && history[history.length - 1] !== state.value) history.push(state.value);
      if (state.terminal || !isSuccess(ex)) return { state, polls, timedOut: false, history };
      if (Date.now() >= deadline) return { state, polls, timedOut: true, history };
      await sleep(intervalMs);
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

  /** Which page number comes first: declared, or told apart by asking for page 0 and page 1. */
  readonly firstPage = memo(async (): Promise<number> => {
    if (this.declarations.firstPage !== undefined) return this.declarations.firstPage;
    const zero = await this.call({ method: 'GET', path: '/v1/vms', query: { page: 0, per_page: 5 } });
    if (!isSuccess(zero)) return 1;
    const one = await this.call({ method: 'GET', path: '/v1/vms', query: { page: 1, per_page: 5 } });
    const ids = (ex: Exchange) => JSON.stringify(vmsOf(ex).map((v) => v['id']));
    return vmsOf(zero).length > 0 && ids(zero) !== ids(one) ? 0 : 1;
  });

  /** Walks every page of the VM list at the given page size. */
  async walk(perPage: number, query: Record<string, string> = {}): Promise<ListWalk> {
    return this.walkAs('primary', perPage, query);
  }

  /** The same walk with another key's token (the second organization's view of the list). */
  async walkAs(as: KeyName, perPage: number, query: Record<string, string> = {}): Promise<ListWalk> {
    const firstPage = await this.firstPage();
    const pages: Exchange[] = [];
    const items: Array<Record<string, unknown>> = [];
    for (let page = firstPage; page < firstPage + MAX_WALK_PAGES; page++) {
      const ex = await this.call({ as, method: 'GET', path: '/v1/vms', query: { ...query, page, per_page: perPage } });
      pages.push(ex);
      if (!isSuccess(ex)) return { perPage, firstPage, pages, items, complete: false, stoppedBecause: `page ${page} answered ${statusText(ex)}` };
      const vms = vmsOf(ex);
      if (vms.length === 0) return { perPage, firstPage, pages, items, complete: true, stoppedBecause: `page ${page} was empty` };
      items.push(...vms);
      if (vms.length < perPage) return { perPage, firstPage, pages, items, complete: true, stoppedBecause: `page ${page} was short` };
    }
    return { perPage, firstPage, pages, items, complete: false, stoppedBecause: `stopped after ${MAX_WALK_PAGES} pages` };
  }
}

/** The vms array of a list response (elements that are not objects are dropped; list-shape reports them). */
export function vmsOf(ex: Exchange): Array<Record<string, unknown>> {
  const body = ex.response?.json as { vms?: unknown } | undefined;
  return Array.isArray(body?.vms) ? (body!.vms as unknown[]).filter((v): v is Record<string, unknown> => !!v && typeof v === 'object') : [];
}
