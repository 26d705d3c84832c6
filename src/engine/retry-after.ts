import type { Exchange } from './exchange.ts';

/** Retry-After in seconds (delta-seconds or HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(ex: Exchange): number | undefined {
  const h = ex.response?.headers['retry-after'];
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n)) return Math.max(0, n);
  const date = Date.parse(h);
  if (Number.isNaN(date)) return undefined;
  // An HTTP date is measured against the target's own clock (its Date header) where it sent one: a target under a
  // time scale, or with a skewed clock, still says how long to wait.
  const theirNow = Date.parse(ex.response?.headers['date'] ?? '');
  return Math.max(0, (date - (Number.isNaN(theirNow) ? Date.now() : theirNow)) / 1000);
}

/** Seconds to wait after a 429: Retry-After when given, else one second. */
export function retryAfterSeconds(ex: Exchange): number {
  return parseRetryAfter(ex) ?? 1;
}

/**
 * How long to wait before retrying a 429: Retry-After read as target-seconds first; under a time scale a target may
 * mean real seconds, so later attempts wait the real reading, which never needs to exceed one window (a minute of
 * target time, in real seconds) plus a second.
 */
export function retryWaitMs(retryAfter: number, attempt: number, timeScale: number, maxSeconds: number): number {
  const seconds = Math.min(retryAfter, maxSeconds);
  const asTarget = (seconds * 1000) / timeScale;
  if (attempt === 0 || timeScale <= 1) return asTarget + 10;
  return Math.max(asTarget, Math.min(seconds, 60 / timeScale + 1) * 1000) + 10;
}
