// Every knob of how the limit probes send their bursts, in one place: how many requests a burst holds, how many are in
// flight, how bursts are spaced and widened, and when probes take turns. Each probe (limit-probes.ts, cross-budget.ts,
// window-kind.ts, window-length.ts) builds its bursts from these; none writes a size or an in-flight count of its own.
// The probes are not paced by the run's pacer (transport/pacer.ts): spending a budget is what they are for.
import type { BurstPlan } from './probes.ts';

export const PROBE_KNOBS = {
  /** How long a burst should take at most, whatever the round trip: far less than half of any window it is judged in. */
  burstMs: 500,
  /** Requests in flight against a near target (and the least on any link). */
  inFlight: 8,
  /** Requests in flight at most, on the slowest links (a limit probe is the only place the suite sends this many). */
  maxInFlight: 64,
  /** Token issuances in flight after the run's first burst (which sends all of its 11 at once). */
  issuanceInFlight: 4,
  /** A budget spent again to meet a fresh refusal: one at a time, so the refusal is the first past the budget. */
  respendInFlight: 1,
  /** A burst too slow to fill half a window is sent again, on a fresh token, this many times wider. */
  slowBurstWidening: 4,
  /** How many times a too-slow burst is sent again: certify must be conclusive (a loaded machine slows some bursts). */
  slowBurstRetries: { certify: 4, otherwise: 1 },
  /** Real ms added to a window's length before a burst that needs a fresh window (a timer may fire early). */
  windowSlackMs: 50,
  /**
   * A window at least this long (real ms) holds the domain probes' bursts side by side with room to spare; shorter,
   * they take turns, one burst at a time (bursts slowing each other would decide a verdict).
   */
  sideBySideMinWindowMs: 30_000,
  /**
   * Real ms after a burst that was never refused before one more request on its token asks whether the burst was
   * counted late (a counter behind its check); at most a tenth of a window, so the request stays in the burst's window.
   */
  lateCountMs: 1_000,
  /** Read operations the operations probe spreads its reads over, besides the list: those the run saw served. */
  maxSpreadReads: 12,
} as const;

/**
 * Requests in flight for a burst of `count`: `base` against a near target; more where each answer takes longer, so that
 * the burst takes about PROBE_KNOBS.burstMs whatever the round trip (a target 100 ms away would otherwise take 4 s for
 * 300 reads).
 */
export function burstConcurrency(count: number, roundTripMs: number, base: number = PROBE_KNOBS.inFlight): number {
  const { burstMs, maxInFlight } = PROBE_KNOBS;
  return Math.min(maxInFlight, Math.max(base, Math.ceil((count * Math.max(0, roundTripMs)) / burstMs)));
}

/** The shapes of burst the probes send, by what each is for. */
export const BURSTS = {
  /** The budget exactly, every answer awaited (the probe's first request, sent before, makes it limit + 1). */
  fill: (limit: number, concurrency: number): BurstPlan => ({ max: limit, concurrency, stopAtFirstRejection: false }),
  /** One past the budget, every answer awaited: how many were served and that the next was refused. */
  overfill: (limit: number, concurrency: number): BurstPlan => ({
    max: limit + 1,
    concurrency,
    stopAtFirstRejection: false,
  }),
  /** One past the budget at most, stopping at the first refusal: the budget spent again. */
  respend: (limit: number, concurrency: number): BurstPlan => ({
    max: limit + 1,
    concurrency,
    stopAtFirstRejection: true,
  }),
  /** Until the first refusal, up to twice the budget and more: a first burst served whole met a window boundary or no limit. */
  untilRefusal: (limit: number, concurrency: number): BurstPlan => ({
    max: 2 * limit + 2,
    concurrency,
    stopAtFirstRejection: true,
  }),
  /** `count` requests at most, stopping at the first refusal (a part of a budget, or another class's). */
  upTo: (count: number, concurrency: number): BurstPlan => ({ max: count, concurrency, stopAtFirstRejection: true }),
  /** `count` requests, every answer awaited. */
  exactly: (count: number, concurrency: number): BurstPlan => ({
    max: count,
    concurrency,
    stopAtFirstRejection: false,
  }),
} as const;
