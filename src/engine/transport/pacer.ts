import { setTimeout as sleep } from 'node:timers/promises';
import type { Waits } from './waits.ts';
import { LIMITS, type RequestClass } from '../documented-limits/limits.js';
import { windowRealMs } from '../documented-limits/windows.js';

/** Headroom left under each budget, for the target's own clock skew and window alignment. */
export const HEADROOM = 0.1;

/**
 * Keeps the suite's own traffic under the documented limits, per token: a sliding log of send times, and a wait
 * when the next request would pass 90% of a budget within any window. The limit probes use their own tokens and
 * are not paced: how they send their bursts is set in limits/probe-knobs.ts.
 */
export class Pacer {
  private readonly sent = new Map<string, number[]>();
  /** Real milliseconds the run has waited for budget. */
  waitedMs = 0;

  constructor(
    private readonly timeScale: number,
    private readonly waits?: Waits
  ) {}

  private windowMs(): number {
    return windowRealMs(this.timeScale);
  }

  /** The most requests of a class the suite sends on one token in a window. */
  private cap(cls: RequestClass): number {
    return Math.floor(LIMITS[cls].limit * (1 - HEADROOM));
  }

  /** The send times of a class on a token that are still inside the window ending now. */
  private inWindow(token: string, cls: RequestClass, now: number): number[] {
    return (this.sent.get(`${cls}:${token}`) ?? []).filter((t) => now - t < this.windowMs());
  }

  /** Whether a request of the class may go on the token now, without a wait. */
  hasRoom(token: string, cls: RequestClass): boolean {
    return this.inWindow(token, cls, Date.now()).length < this.cap(cls);
  }

  async acquire(token: string, cls: RequestClass, by = 'pacer'): Promise<void> {
    for (;;) {
      const now = Date.now();
      const log = this.inWindow(token, cls, now);
      if (log.length < this.cap(cls)) {
        log.push(now);
        this.sent.set(`${cls}:${token}`, log);
        return;
      }
      const wait = this.windowMs() - (now - log[0]!) + 5;
      this.waitedMs += wait;
      if (this.waits)
        await this.waits.sleep(
          wait,
          `a token's budget of ${cls} (the suite keeps each token under 90% of the documented limit)`,
          by,
          'budget'
        );
      else await sleep(wait);
    }
  }
}
