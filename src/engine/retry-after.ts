import type { Exchange } from './exchange.ts';

/** Retry-After in seconds (delta-seconds or HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(ex: Exchange): number | undefined {
  const h = ex.response?.headers['retry-after'];
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n)) return Math.max(0, n);
  const date = Date.parse(h);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** Seconds to wait after a 429: Retry-After when given, else one second. */
export function retryAfterSeconds(ex: Exchange): number {
  return parseRetryAfter(ex) ?? 1;
}
