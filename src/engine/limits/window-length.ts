// Whether a spent budget stays spent for as long as a minute's window holds it (LIMIT-READ-300, LIMIT-WRITE-60,
// LIMIT-TOKEN-10). Any window of a minute, however it is counted (fixed windows aligned anywhere, a sliding log, a
// bucket refilled over a minute), serves at most twice its limit in a span shorter than a minute; a shorter window
// serves more. Observed once a probe's budget has come back: spent again at once, then one request a little before a
// minute has passed since the first burst began. Called by the limit probes; judged by limits.window-length.
import type { Exchange } from '../transport/exchange.ts';
import { WINDOW_TARGET_MS } from '../documented-limits/limits.js';
import { burst, type Burst, type Classifier } from './probes.ts';
import { BURSTS } from './probe-knobs.ts';

export interface WindowLengthObservation {
  what: string;
  limit: number;
  /** Answers served on the budget from the first burst's first request to `last`, counted (never over-counted). */
  served: number;
  /** Target seconds from the first burst's first request sent to `last` answered: at least the span on the target. */
  spanSeconds: number;
  /** The first burst's first request, and the last request counted: the evidence. */
  first: Exchange;
  last: Exchange;
  /** The budget spent again once it had come back; the request sent just before a minute had passed. */
  again?: Burst;
  nearMinute?: Exchange;
}

/** Target seconds before the minute is up when the last request is sent: its answer must arrive inside the minute. */
const BEFORE_MINUTE_SECONDS = 5;

interface WindowLengthPlan {
  what: string;
  limit: number;
  timeScale: number;
  /** The probe's burst that met the rejection (its first request opened the span). */
  first: Burst;
  /** The requests after it the target served on the same budget (the reset observation's), in order sent. */
  servedSince: Exchange[];
  send: () => Promise<Exchange>;
  cls: Classifier;
  concurrency: number;
  sleep: (ms: number, why: string) => Promise<void>;
}

const startOf = (ex: Exchange) => Date.parse(ex.startedAt);
const endOf = (ex: Exchange) => Date.parse(ex.startedAt) + ex.durationMs;

/**
 * Spends the budget again and, if the minute since the first burst began is not yet nearly up, sends one more request
 * BEFORE_MINUTE_SECONDS before it is. Nothing is sent once the minute is past: no span shorter than it remains.
 */
export async function observeWindowLength(p: WindowLengthPlan): Promise<WindowLengthObservation | undefined> {
  const firstSent = [...p.first.exchanges].sort((a, b) => startOf(a) - startOf(b))[0];
  if (!firstSent || p.servedSince.length === 0) return undefined;
  const minuteEnds = startOf(firstSent) + WINDOW_TARGET_MS / p.timeScale;
  const lastSendAt = minuteEnds - (BEFORE_MINUTE_SECONDS * 1000) / p.timeScale;
  let served = p.first.accepted + p.servedSince.length;
  let last = p.servedSince.at(-1)!;
  const observation = (): WindowLengthObservation => ({
    what: p.what,
    limit: p.limit,
    served,
    spanSeconds: ((endOf(last) - startOf(firstSent)) * p.timeScale) / 1000,
    first: firstSent,
    last,
  });
  if (Date.now() >= lastSendAt) return observation();
  const again = await burst(BURSTS.respend(p.limit, p.concurrency), p.send, p.cls);
  served += again.accepted;
  const servedAgain = again.exchanges.filter(p.cls.accepted);
  if (servedAgain.length) last = servedAgain.reduce((a, b) => (endOf(b) > endOf(a) ? b : a));
  if (Date.now() >= lastSendAt) return { ...observation(), again };
  await p.sleep(
    lastSendAt - Date.now(),
    `shortly before a minute has passed since the ${p.what} burst began (a budget a minute holds stays spent)`
  );
  const nearMinute = await p.send();
  if (p.cls.accepted(nearMinute)) {
    served++;
    last = nearMinute;
  }
  return { ...observation(), again, nearMinute };
}

/** More than twice the limit served in a span shorter than a minute: no window of a minute serves that many. */
export function windowTooShort(o: WindowLengthObservation): boolean {
  return o.served > 2 * o.limit && o.spanSeconds < WINDOW_TARGET_MS / 1000;
}
