// Finding the run's own VMs by name in a list the run knows nothing about: its first page may be 0 or 1, it may serve
// fewer items than asked, list the newest first, and name its total anything. Cleanup walks it this way, so what it
// cannot find is said, never guessed.
import type { KeyName } from '../config/config.ts';
import type { CallOptions } from '../identity/call.ts';
import { isSuccess, statusText, type Exchange } from '../transport/exchange.ts';
import { readTotal, totalCandidatesOf } from './discover.ts';
import { vmsOf } from './run-objects.ts';

type Call = (o: CallOptions) => Promise<Exchange>;

/** What a sweep of the list found under the run's prefix, and whether it saw the whole list. */
export interface Sweep {
  /** The listed VMs whose name starts with the prefix, once each. */
  matches: Array<Record<string, unknown>>;
  /** True when the walk saw the whole list: an empty page, a page of nothing new, a refused page past the total, or the total reached. */
  complete: boolean;
  stoppedBecause: string;
  /** Pages read, and distinct VMs seen on them. */
  pages: number;
  seen: number;
  /** What was walked: "the whole list", or the run's tag filter. */
  scope: string;
}

interface SweepOptions {
  /** The names to find start with it (cc-<run id>-). */
  prefix: string;
  /** Whose view of the list (the organization that holds the VMs). */
  as?: KeyName;
  lane?: string;
  /** A filter narrowing the list (the run's tag), when every VM sought carries it. */
  query?: Record<string, string>;
  /** The most pages read: a walk that reaches it is incomplete, and says so. */
  maxPages: number;
  /** The total's pointer, when the overlay declares it (else the largest total-like count the first page holds). */
  totalPointer?: string;
}

/** An exchange for a request that was never sent (its call threw), so a sweep reports it like a page that failed. */
function unsent(what: string, err: unknown): Exchange {
  return {
    seq: -1,
    sentBy: 'cleanup',
    request: { method: 'GET', url: `http://unsent${what.slice(4)}`, headers: {} },
    transportError: `not sent: ${(err as Error).message ?? String(err)}`,
    startedAt: new Date().toISOString(),
    durationMs: 0,
  };
}

/** Statuses a target may answer for a page past the last one. */
const PAST_END = new Set([400, 404, 416, 422]);

/** The items seen so far (by id, else by name) and the largest total any page stated. */
class Seen {
  readonly items = new Map<string, Record<string, unknown>>();
  total: number | undefined;

  constructor(private readonly totalPointer: string | undefined) {}

  /** Takes a page: how many of its items were new. */
  take(ex: Exchange): number {
    let fresh = 0;
    const vms = vmsOf(ex);
    for (const vm of vms) {
      const key = JSON.stringify(vm['id'] ?? ['name', vm['name']]);
      if (!this.items.has(key)) fresh++;
      this.items.set(key, vm);
    }
    const stated = this.totalPointer ? [readTotal(ex, this.totalPointer)] : totalCandidatesOf(ex).map((c) => c.value);
    // A count no larger than a full page may be the page's own count: it never ends a walk alone (the next page does).
    for (const t of stated)
      if (typeof t === 'number' && Number.isInteger(t) && t > vms.length) this.total = Math.max(this.total ?? 0, t);
    return fresh;
  }

  /** True when the largest stated total is reached. */
  reachedTotal(): boolean {
    return this.total !== undefined && this.items.size >= this.total;
  }
}

/**
 * Walks the list at per_page 100 and returns the VMs named with the prefix. Pages 0 and 1 are both read, so the first
 * page is among them whatever the target counts from (a target counting from 1 refuses page 0, answers it empty, or
 * answers page 1 again; items are kept once each). A short page does not end the walk (a target may serve fewer than
 * asked): an empty page does, a page that adds nothing new (a target that repeats its last page), a refused page once
 * the stated total is reached, or the total itself. Bounded by maxPages; a walk cut there is incomplete.
 */
export async function sweepList(call: Call, o: SweepOptions): Promise<Sweep> {
  const seen = new Seen(o.totalPointer);
  const scope = o.query ? `the list under ${new URLSearchParams(o.query).toString()}` : 'the whole list';
  let pages = 0;
  const read = async (page: number): Promise<Exchange> => {
    pages++;
    const query = { ...o.query, page, per_page: 100 };
    // A call that could not be made (no token to be had) is a page that did not answer: the sweep is then incomplete.
    return call({
      ...(o.as ? { as: o.as } : {}),
      ...(o.lane ? { lane: o.lane } : {}),
      method: 'GET',
      path: '/v1/vms',
      query,
    }).catch((err: unknown) => unsent(`GET /v1/vms?${new URLSearchParams(query as never).toString()}`, err));
  };
  const done = (complete: boolean, stoppedBecause: string): Sweep => ({
    matches: [...seen.items.values()].filter((v) => typeof v['name'] === 'string' && v['name'].startsWith(o.prefix)),
    complete,
    stoppedBecause,
    pages,
    seen: seen.items.size,
    scope,
  });
  const first = await firstPages(read, seen);
  if (first.ended) return done(first.complete, first.why);
  for (let page = 2; page < o.maxPages; page++) {
    const ex = await read(page);
    if (!isSuccess(ex)) {
      const past = PAST_END.has(ex.response?.status ?? 0) && (seen.total === undefined || seen.reachedTotal());
      return done(past, `page ${page} answered ${statusText(ex)}${past ? ' (past the last page)' : ''}`);
    }
    if (vmsOf(ex).length === 0) return done(true, `page ${page} was empty`);
    if (seen.take(ex) === 0) return done(true, `page ${page} held only VMs already seen (the list ended before it)`);
    if (seen.reachedTotal()) return done(true, `the ${seen.total} VMs the list's total states were seen`);
  }
  return done(false, `stopped after ${o.maxPages} pages: the list is longer than a bounded walk covers`);
}

/** Pages 0 and 1: whichever the target counts from, its first page is one of them. */
async function firstPages(
  read: (page: number) => Promise<Exchange>,
  seen: Seen
): Promise<{ ended: boolean; complete: boolean; why: string }> {
  const zero = await read(0);
  const one = await read(1);
  if (!isSuccess(zero) && !isSuccess(one))
    return { ended: true, complete: false, why: `page 0 answered ${statusText(zero)}, page 1 ${statusText(one)}` };
  if (isSuccess(zero)) seen.take(zero);
  if (!isSuccess(one)) {
    // Counting from 0, page 1 may be refused as past the end when page 0 held everything.
    const past = PAST_END.has(one.response?.status ?? 0) && (seen.total === undefined || seen.reachedTotal());
    return { ended: true, complete: past, why: `page 1 answered ${statusText(one)}` };
  }
  seen.take(one);
  if (vmsOf(one).length === 0) return { ended: true, complete: true, why: 'page 1 was empty' };
  if (seen.reachedTotal())
    return { ended: true, complete: true, why: `the ${seen.total} VMs the list's total states were seen` };
  return { ended: false, complete: false, why: '' };
}
