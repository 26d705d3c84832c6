import { setTimeout as sleep } from 'node:timers/promises';

/** Waits longer than this are announced: a person watching the run would wonder what it is doing. */
const LONG_WAIT_MS = 2000;

/** A wait the run is in: what for, who waits, and until when (real ms since the epoch). */
export interface Wait {
  what: string;
  /** The check (or phase: setup, limits, cleanup) that waits. */
  by: string;
  startedAt: number;
  endsAt: number;
  /** True when endsAt is only the latest it may end (polling a task up to --task-timeout), not when it will. */
  upTo: boolean;
}

/**
 * Why the run chose to wait: its own pacing under a budget, a Retry-After outside the limit probes, the limit probes'
 * windows, target time a check waits out (a token's lifetime, a settled state), the pause between task polls, a list
 * settling, and events awaited (deliveries; recorded as the time actually spent).
 */
export type WaitCause =
  'budget' | 'retry-after' | 'limit-window' | 'target-time' | 'task-polling' | 'list-settle' | 'delivery';

export const WAIT_CAUSES: readonly WaitCause[] = [
  'budget',
  'retry-after',
  'limit-window',
  'target-time',
  'task-polling',
  'list-settle',
  'delivery',
];

/** Waits a quick run must not make: the run's own choices, which a plan can avoid (the guard in test/suite/waits.test.ts). */
export const AVOIDABLE_WAITS: readonly WaitCause[] = ['budget', 'retry-after'];

export type WaitTotals = Record<WaitCause, { count: number; ms: number }>;

export interface WaitListener {
  onWaitStart?(w: Wait): void;
  onWaitEnd?(w: Wait): void;
}

/**
 * Every long wait of the run goes through here, so a person (or CI log) can see it: fixed sleeps (the token lifetime,
 * a rate-limit window, Retry-After) and bounded waits for something to happen (a task to end, a delivery to arrive).
 */
export class Waits {
  readonly active = new Set<Wait>();
  /** Real milliseconds waited per cause (waits side by side add up), and how many waits. */
  readonly totals: WaitTotals = Object.fromEntries(WAIT_CAUSES.map((c) => [c, { count: 0, ms: 0 }])) as WaitTotals;

  constructor(private readonly listener: WaitListener = {}) {}

  /** Sleeps ms real milliseconds for a cause; a sleep over LONG_WAIT_MS is announced. */
  async sleep(ms: number, what: string, by: string, cause: WaitCause): Promise<void> {
    if (ms <= 0) return;
    const started = Date.now();
    try {
      await this.during(sleep(ms), ms, what, by, false);
    } finally {
      this.record(cause, Date.now() - started);
    }
  }

  /** Runs work that may take up to maxMs (polling, waiting for a delivery); announced when the bound is long. */
  async upTo<T>(work: Promise<T>, maxMs: number, what: string, by: string, cause?: WaitCause): Promise<T> {
    const started = Date.now();
    try {
      return await this.during(work, maxMs, what, by, true);
    } finally {
      if (cause) this.record(cause, Date.now() - started);
    }
  }

  record(cause: WaitCause, ms: number): void {
    this.totals[cause].count++;
    this.totals[cause].ms += ms;
  }

  private async during<T>(work: Promise<T>, ms: number, what: string, by: string, upTo: boolean): Promise<T> {
    if (ms <= LONG_WAIT_MS) return work;
    const w: Wait = { what, by, startedAt: Date.now(), endsAt: Date.now() + ms, upTo };
    this.active.add(w);
    this.listener.onWaitStart?.(w);
    try {
      return await work;
    } finally {
      this.active.delete(w);
      this.listener.onWaitEnd?.(w);
    }
  }
}
