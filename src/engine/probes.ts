import type { Exchange } from './exchange.ts';

/** How a probe tells the answers apart: served (counted and allowed) or refused by the limit. */
export interface Classifier {
  accepted(ex: Exchange): boolean;
  rejected(ex: Exchange): boolean;
}

export interface Burst {
  exchanges: Exchange[];
  accepted: number;
  rejections: Exchange[];
  /** Answers that are neither (server errors, transport failures): the probe cannot count on them. */
  others: Exchange[];
  /** Real ms from the first send to the last answer. */
  spanMs: number;
}

export interface BurstPlan {
  /** Requests to send at most. */
  max: number;
  concurrency: number;
  /** Stop sending once the first rejection is seen (in-flight requests still complete). */
  stopAtFirstRejection: boolean;
}

/** Sends up to plan.max requests, plan.concurrency at a time, and counts the answers. */
export async function burst(plan: BurstPlan, send: (i: number) => Promise<Exchange>, cls: Classifier): Promise<Burst> {
  const exchanges: Exchange[] = [];
  let next = 0;
  let stop = false;
  const started = Date.now();
  const worker = async () => {
    while (!stop && next < plan.max) {
      const ex = await send(next++);
      exchanges.push(ex);
      if (plan.stopAtFirstRejection && cls.rejected(ex)) stop = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.max) }, worker));
  return {
    exchanges,
    accepted: exchanges.filter((ex) => cls.accepted(ex)).length,
    rejections: exchanges.filter((ex) => cls.rejected(ex)),
    others: exchanges.filter((ex) => !cls.accepted(ex) && !cls.rejected(ex)),
    spanMs: Date.now() - started,
  };
}

export type LimitVerdict =
  | { kind: 'exact'; note?: string }
  | { kind: 'stricter'; accepted: number }
  | { kind: 'looser'; accepted: number | 'unlimited' }
  | { kind: 'inconclusive'; reason: string };

/**
 * Judges a limit of `limit` per window from up to two bursts. The first sends exactly limit+1; a window boundary
 * inside it can only add budget, so fewer than `limit` accepted is stricter for sure, and limit+1 accepted may be
 * a boundary. The second burst (fresh budget, sent at once) settles that: two short bursts in a row cannot both
 * straddle a boundary. A burst that did not fit in half a window proves nothing.
 */
export function judgeLimit(limit: number, windowMs: number, first: Burst, second?: Burst): LimitVerdict {
  const slow = (b: Burst) => b.spanMs >= windowMs / 2;
  if (first.others.length) return { kind: 'inconclusive', reason: `${first.others.length} answers were neither served nor limited (e.g. ${first.others[0]!.response?.status ?? first.others[0]!.transportError})` };
  if (slow(first)) return { kind: 'inconclusive', reason: `the burst took ${first.spanMs} ms, more than half a window (${Math.round(windowMs)} ms)` };
  if (first.accepted < limit) return { kind: 'stricter', accepted: first.accepted };
  if (first.accepted === limit && first.rejections.length > 0) return { kind: 'exact' };
  if (!second) return { kind: 'inconclusive', reason: `all ${first.accepted} requests were served; the burst may have straddled a window boundary` };
  if (second.others.length) return { kind: 'inconclusive', reason: `${second.others.length} answers of the second burst were neither served nor limited` };
  if (slow(second) || first.spanMs + second.spanMs >= windowMs) return { kind: 'inconclusive', reason: `the two bursts took ${first.spanMs + second.spanMs} ms together, too long to rule out a window boundary` };
  if (second.accepted === limit && second.rejections.length > 0) return { kind: 'exact', note: 'the first burst straddled a window boundary' };
  if (second.accepted < limit) return { kind: 'inconclusive', reason: `the second burst was served ${second.accepted} times after the first was served ${first.accepted} times` };
  return { kind: 'looser', accepted: second.rejections.length ? second.accepted : 'unlimited' };
}

export function describeVerdict(limit: number, what: string, v: LimitVerdict): string {
  switch (v.kind) {
    case 'exact':
      return `${limit} ${what} served, the next refused${v.note ? ` (${v.note})` : ''}`;
    case 'stricter':
      return `only ${v.accepted} ${what} served before refusals; the documented limit is ${limit}`;
    case 'looser':
      return v.accepted === 'unlimited' ? `no limit: ${what} were never refused` : `${v.accepted} ${what} served; the documented limit is ${limit}`;
    case 'inconclusive':
      return `inconclusive: ${v.reason}`;
  }
}
