// Retry-After as the run reads it off a recorded answer; what the header means lives once, in
// documented-limits/retry-after.js, which the k6 scripts share.
import type { Exchange } from './exchange.ts';
import { readRetryAfter } from '../documented-limits/retry-after.js';

export {
  retryWaitMs,
  mayMeanRealSeconds,
  realReadingUnjudged,
  REAL_READING_TOLERANCE_SECONDS,
} from '../documented-limits/retry-after.js';

/** Retry-After in target-seconds (delta-seconds or HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(ex: Exchange, timeScale: number): number | undefined {
  return readRetryAfter(ex.response?.headers['retry-after'], ex.response?.headers['date'], timeScale)?.seconds;
}

/** How far an HTTP-date Retry-After lies before the answer's own Date header, in seconds; undefined when it does not. */
export function retryAfterBeforeDate(ex: Exchange, timeScale: number): number | undefined {
  return readRetryAfter(ex.response?.headers['retry-after'], ex.response?.headers['date'], timeScale)?.beforeDate;
}

/** Seconds to wait after a 429: Retry-After when given, else one second. */
export function retryAfterSeconds(ex: Exchange, timeScale: number): number {
  return parseRetryAfter(ex, timeScale) ?? 1;
}
