import { setTimeout as sleep } from 'node:timers/promises';

/** Waits longer than this are announced: a person watching the run would wonder what it is doing. */
export const LONG_WAIT_MS = 2000;

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

  constructor(private readonly listener: WaitListener = {}) {}

  /** Sleeps ms real milliseconds; a sleep over LONG_WAIT_MS is announced. */
  async sleep(ms: number, what: string, by: string): Promise<void> {
    if (ms <= 0) return;
    await this.during(sleep(ms), ms, what, by, false);
  }

  /** Runs work that may take up to maxMs (polling, waiting for a delivery); announced when the bound is long. */
  async upTo<T>(work: Promise<T>, maxMs: number, what: string, by: string): Promise<T> {
    return this.during(work, maxMs, what, by, true);
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
