// @ts-check
// What a Retry-After header means, and how long to wait on it, once for the engine and the k6 scripts. ES2015, as
// limits.js says.
import { WINDOW_SECONDS } from './limits.js';

/**
 * @typedef {object} RetryAfter
 * @property {number} seconds   how long the target asks to wait, in target-seconds
 * @property {'delta-seconds' | 'HTTP date'} form
 * @property {number} [beforeDate]  an HTTP date earlier than the answer's own Date header: by how many seconds
 */

/**
 * Reads a Retry-After value (RFC 9110 §10.2.3) as target-seconds. Delta-seconds are the target's own seconds. An HTTP
 * date is measured against the target's clock (its Date header) where it sent one, so a target under a time scale, or
 * with a skewed clock, still says how long to wait; without one, against this machine's clock, whose real seconds
 * are scaled to target-seconds. Undefined when absent or unreadable.
 * @param {string | null | undefined} value       the Retry-After header
 * @param {string | null | undefined} dateHeader  the answer's Date header
 * @param {number} timeScale                       target-seconds per real second
 * @param {number} [nowMs]                         this machine's clock (for an HTTP date without a Date header)
 * @returns {RetryAfter | undefined}
 */
export function readRetryAfter(value, dateHeader, timeScale, nowMs) {
  if (value === undefined || value === null || String(value).trim() === '') return undefined;
  const text = String(value).trim();
  const n = Number(text);
  if (Number.isFinite(n)) return { seconds: Math.max(0, n), form: 'delta-seconds' };
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const theirNow = dateHeader ? Date.parse(String(dateHeader)) : NaN;
  if (!Number.isNaN(theirNow)) {
    // A date before the answer's own is no wait at all: read as 0, and said (the two dates share a clock, scaled or not).
    if (at < theirNow) return { seconds: 0, form: 'HTTP date', beforeDate: (theirNow - at) / 1000 };
    return { seconds: (at - theirNow) / 1000, form: 'HTTP date' };
  }
  const ourNow = nowMs === undefined ? Date.now() : nowMs;
  return { seconds: (Math.max(0, at - ourNow) / 1000) * timeScale, form: 'HTTP date' };
}

/**
 * Real seconds to wait for a Retry-After value (the k6 scripts wait exactly this long).
 * @param {string | null | undefined} value
 * @param {number} timeScale
 * @param {number} [nowMs]
 * @param {string | null | undefined} [dateHeader]
 * @returns {number | undefined}
 */
export function retryAfterRealSeconds(value, timeScale, nowMs, dateHeader) {
  const r = readRetryAfter(value, dateHeader, timeScale, nowMs);
  return r === undefined ? undefined : r.seconds / timeScale;
}

/**
 * Real milliseconds to wait before retrying after a 429 whose Retry-After says `retryAfter` target-seconds (one when
 * it said nothing): read as target-seconds first; under a time scale a target may mean real seconds, so later
 * attempts wait the real reading, which never needs to exceed one window (a minute of target time, in real seconds)
 * plus a second.
 * @param {number} retryAfter
 * @param {number} attempt     0 for the first retry
 * @param {number} timeScale
 * @param {number} maxSeconds  longest wait honoured
 */
export function retryWaitMs(retryAfter, attempt, timeScale, maxSeconds) {
  const seconds = Math.min(retryAfter, maxSeconds);
  const asTarget = (seconds * 1000) / timeScale;
  if (attempt === 0 || timeScale <= 1) return asTarget + 10;
  return Math.max(asTarget, Math.min(seconds, WINDOW_SECONDS / timeScale + 1) * 1000) + 10;
}

/**
 * Whether a Retry-After may be meant in real seconds by a target under a time scale: only a value within one
 * window's real length can be meant so.
 * @param {number} retryAfter  target-seconds as read
 * @param {number} timeScale
 */
export function mayMeanRealSeconds(retryAfter, timeScale) {
  return timeScale > 1 && retryAfter <= WINDOW_SECONDS / timeScale + 1;
}

/** Real seconds a request waits beyond a Retry-After read as real seconds before the answer is judged. */
export const REAL_READING_TOLERANCE_SECONDS = 1;

/**
 * Why a Retry-After read as real seconds cannot be judged at this time scale, or undefined when it can. A reading is
 * judged by a request sent once it has passed, plus a tolerance; where the tolerance is not smaller than the window
 * (a minute of target time, in real seconds), every answer passes it, right or not: whole real seconds do not
 * survive a compression that makes the window a second or less. Zero reads the same in either unit (now), so the
 * target reading judges it.
 * @param {number} retryAfter  target-seconds as read
 * @param {number} timeScale
 * @returns {string | undefined}
 */
export function realReadingUnjudged(retryAfter, timeScale) {
  if (!mayMeanRealSeconds(retryAfter, timeScale) || retryAfter === 0) return undefined;
  const windowReal = WINDOW_SECONDS / timeScale;
  if (REAL_READING_TOLERANCE_SECONDS < windowReal) return undefined;
  return `at time scale ${timeScale} a window lasts ${windowReal.toFixed(2)} real seconds, no longer than the ${REAL_READING_TOLERANCE_SECONDS} s a Retry-After read as real seconds is allowed: that reading cannot be told right or wrong (a time scale of ${Math.floor(WINDOW_SECONDS / REAL_READING_TOLERANCE_SECONDS) - 1} or lower judges it)`;
}
