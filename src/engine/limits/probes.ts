import type { Exchange } from '../transport/exchange.ts';
import { judgeBursts, judgeFreshWindow, type BurstCounts, type LimitVerdict } from '../documented-limits/verdicts.js';

export type { LimitVerdict };

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

/** The counts a judgement needs (documented-limits/verdicts.js judges; this module only sends and counts). */
function countsOf(b: Burst): BurstCounts {
  const other = b.others[0];
  return {
    accepted: b.accepted,
    rejected: b.rejections.length,
    others: b.others.length,
    otherExample: other ? String(other.response?.status ?? other.transportError) : undefined,
    spanMs: b.spanMs,
    datedSeconds: dateAdvance(b.exchanges),
  };
}

/** Seconds the target's Date header advanced over these answers (the earliest to the latest), where it sent one. */
export function dateAdvance(exchanges: readonly Exchange[]): number | undefined {
  const dates = exchanges.map((ex) => Date.parse(ex.response?.headers['date'] ?? '')).filter((t) => !Number.isNaN(t));
  return dates.length < 2 ? undefined : (Math.max(...dates) - Math.min(...dates)) / 1000;
}

/** Judges a limit from up to two bursts (see judgeBursts). */
export function judgeLimit(limit: number, windowMs: number, first: Burst, second?: Burst): LimitVerdict {
  return judgeBursts(limit, windowMs, countsOf(first), second && countsOf(second));
}

/** Judges a burst sent in a fresh window after a first one served whole (see judgeFreshWindow). */
export function judgeFresh(limit: number, windowMs: number, b: Burst): LimitVerdict {
  return judgeFreshWindow(limit, windowMs, countsOf(b));
}
