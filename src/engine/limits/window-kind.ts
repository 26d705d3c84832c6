// Which kind of window counts a budget. A burst sent at once gets the same answers from both: the
// whole budget is back one window after it. A budget spent in two halves half a window apart tells them apart: one
// window after the first half, fixed windows serve the whole budget again, a sliding log only the first half (the
// second is still inside its window).
import type { Exchange } from '../transport/exchange.ts';
import { burst, type Burst, type Classifier } from './probes.ts';
import { BURSTS } from './probe-knobs.ts';

export type WindowKind = 'fixed' | 'sliding';

export interface WindowKindObservation {
  what: string;
  limit: number;
  /** The first half, the rest (until refused) half a window later, and the whole budget one window after the first. */
  bursts: Burst[];
  /** The kind the third burst showed; absent when the probe could not tell (reason says why). */
  kind?: WindowKind;
  reason?: string;
}

interface WindowKindPlan {
  what: string;
  limit: number;
  /** Real ms of one window at the run's time scale. */
  windowMs: number;
  concurrency: number;
  send: () => Promise<Exchange>;
  cls: Classifier;
  sleep: (ms: number, why: string) => Promise<void>;
}

/** What the third burst shows, given that the first two spent the budget as planned (pure: judged in tests). */
export function judgeWindowKind(
  limit: number,
  half: number,
  third: Pick<Burst, 'accepted' | 'rejections'>
): { kind?: WindowKind; reason?: string } {
  if (third.accepted >= limit) return { kind: 'fixed' };
  if (third.accepted === half && third.rejections.length > 0) return { kind: 'sliding' };
  return {
    reason: `a window after the first half, ${third.accepted} of ${limit} were served: neither the whole budget (fixed windows) nor the first half's ${half} (a sliding window)`,
  };
}

/**
 * Spends a fresh token's budget in two halves half a window apart, then sends the whole budget one window after the
 * first half. Timing it cannot keep (a slow burst, a window boundary met early) makes it inconclusive, never a verdict.
 */
export async function probeWindowKind(p: WindowKindPlan): Promise<WindowKindObservation> {
  const half = Math.floor(p.limit / 2);
  const bursts: Burst[] = [];
  const out = (extra: Partial<WindowKindObservation>): WindowKindObservation => ({
    what: p.what,
    limit: p.limit,
    bursts,
    ...extra,
  });
  const start1 = Date.now();
  const first = await burst(BURSTS.upTo(half, p.concurrency), p.send, p.cls);
  bursts.push(first);
  if (first.accepted !== half)
    return out({ reason: `the first ${half} ${p.what} on a fresh token were not all served (${first.accepted})` });
  if (first.spanMs > p.windowMs / 4)
    return out({ reason: `the first half took ${first.spanMs} ms, more than a quarter of a window` });
  await p.sleep(start1 + p.windowMs / 2 - Date.now(), `half a window after the first half of the ${p.what}`);
  const start2 = Date.now();
  const second = await burst(BURSTS.exactly(p.limit - half + 1, p.concurrency), p.send, p.cls);
  bursts.push(second);
  if (Date.now() > start1 + (p.windowMs * 3) / 4)
    return out({ reason: `the second half ended more than three quarters of a window after the first began` });
  // A fixed window aligned to the clock may have begun between the halves: then nothing is refused, and nothing is told.
  if (second.accepted !== p.limit - half || second.rejections.length !== 1)
    return out({
      reason: `the rest of the budget half a window later served ${second.accepted} and refused ${second.rejections.length} (${p.limit - half} served and 1 refused were due: a window that began between the halves, or another budget)`,
    });
  await p.sleep(
    start1 + first.spanMs + p.windowMs + p.windowMs / 20 - Date.now(),
    `a window after the first half of the ${p.what}`
  );
  const third = await burst(BURSTS.upTo(p.limit, p.concurrency), p.send, p.cls);
  bursts.push(third);
  // The second half leaves a sliding window a window after it was sent: the third burst must be over by then.
  if (Date.now() > start2 + p.windowMs)
    return out({ reason: 'the third burst ended after the second half had left its window' });
  return out(judgeWindowKind(p.limit, half, third));
}
