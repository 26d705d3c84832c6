// @ts-check
// How a limit is judged from what a probe counted, once for the engine's bursts (limits/) and the k6 scripts' windows
// (load/lib/). Counting is the caller's; this module only judges. ES2015, as limits.js says.
import { tooSlowByTargetClock, tooSlowForWindow } from './windows.js';

// ------------------------------------------------------------------ one window's counts

/**
 * What the counts of one window show about a limit of `limit` per window:
 * - `not-filled`: no more than `limit` were sent, so nothing can be told from them;
 * - `looser`: more than `limit` were served;
 * - `exact`: exactly `limit` were served;
 * - `stricter`: fewer than `limit` were served while refusals came before the limit could have been used up (even
 *   counting every unanswered request as served);
 * - `hidden`: unanswered requests hide the count.
 * @param {number} limit
 * @param {{ sent: number, accepted: number, refused: number }} counts
 * @returns {'not-filled' | 'looser' | 'exact' | 'stricter' | 'hidden'}
 */
export function countVerdict(limit, counts) {
  const unanswered = Math.max(0, counts.sent - counts.accepted - counts.refused);
  if (counts.sent <= limit) return 'not-filled';
  if (counts.accepted > limit) return 'looser';
  if (counts.accepted === limit) return 'exact';
  if (counts.refused > 0 && counts.accepted + unanswered < limit) return 'stricter';
  return 'hidden';
}

// ------------------------------------------------------------------ the engine's bursts

/**
 * @typedef {{ kind: 'exact', note?: string } | { kind: 'stricter', accepted: number } | { kind: 'looser', accepted: number | 'unlimited', note?: string } | { kind: 'inconclusive', reason: string }} LimitVerdict
 */

/**
 * What a burst of requests came to: served, refused by the limit, neither (a 5xx, no answer), and how long it took.
 * @typedef {object} BurstCounts
 * @property {number} accepted
 * @property {number} rejected
 * @property {number} others
 * @property {string} [otherExample]  what the first of the others was (a status, a transport error)
 * @property {number} spanMs          real ms from the first send to the last answer
 * @property {number} [datedSeconds]  seconds the target's Date header advanced from its first answer to its last
 */

/** @param {BurstCounts} b */
const sentIn = (b) => b.accepted + b.rejected + b.others;

/**
 * Judges a limit of `limit` per window from up to two bursts. The first sends exactly limit+1; a window boundary
 * inside it can only add budget, so fewer than `limit` served is stricter for sure, and limit+1 served may be a
 * boundary. The second burst (fresh budget, sent at once) settles that: two short bursts in a row cannot both
 * straddle a boundary. A burst that did not fit in half a window proves nothing.
 * @param {number} limit
 * @param {number} windowMs  real ms of a window
 * @param {BurstCounts} first
 * @param {BurstCounts} [second]
 * @returns {LimitVerdict}
 */
export function judgeBursts(limit, windowMs, first, second) {
  if (first.others)
    return {
      kind: 'inconclusive',
      reason: `${first.others} answers were neither served nor limited (e.g. ${first.otherExample})`,
    };
  if (tooSlowForWindow(first.spanMs, windowMs))
    return {
      kind: 'inconclusive',
      reason: `the burst took ${first.spanMs} ms, more than half a window (${Math.round(windowMs)} ms)`,
    };
  const byTarget =
    tooSlowByTargetClock(first.datedSeconds, first.spanMs, windowMs) ||
    (second && tooSlowByTargetClock(second.datedSeconds, second.spanMs, windowMs));
  if (byTarget) return { kind: 'inconclusive', reason: byTarget };
  const shown = countVerdict(limit, { sent: sentIn(first), accepted: first.accepted, refused: first.rejected });
  if (shown === 'not-filled')
    return {
      kind: 'inconclusive',
      reason: `only ${sentIn(first)} requests were sent, no more than the limit of ${limit}`,
    };
  if (shown === 'stricter') return { kind: 'stricter', accepted: first.accepted };
  if (shown === 'exact' && first.rejected > 0) return { kind: 'exact' };
  if (!second)
    return {
      kind: 'inconclusive',
      reason: `all ${first.accepted} requests were served; the burst may have straddled a window boundary`,
    };
  if (second.others)
    return {
      kind: 'inconclusive',
      reason: `${second.others} answers of the second burst were neither served nor limited`,
    };
  if (tooSlowForWindow(second.spanMs, windowMs) || first.spanMs + second.spanMs >= windowMs)
    return {
      kind: 'inconclusive',
      reason: `the two bursts took ${first.spanMs + second.spanMs} ms together, too long to rule out a window boundary`,
    };
  return judgeSecondBurst(
    limit,
    second,
    `the second burst was served ${second.accepted} times after the first was served ${first.accepted} times`
  );
}

/**
 * The verdict of a burst sent where the budget is fresh, after a first burst was served whole: exactly `limit`
 * served shows the first straddled a boundary; fewer contradicts the first; more is looser.
 * @param {number} limit
 * @param {BurstCounts} burst
 * @param {string} fewerReason  why fewer than `limit` proves nothing
 * @returns {LimitVerdict}
 */
function judgeSecondBurst(limit, burst, fewerReason) {
  if (burst.accepted === limit && burst.rejected > 0)
    return { kind: 'exact', note: 'the first burst straddled a window boundary' };
  if (burst.accepted < limit) return { kind: 'inconclusive', reason: fewerReason };
  return { kind: 'looser', accepted: burst.rejected ? burst.accepted : 'unlimited' };
}

/**
 * Judges a burst sent a whole window after a first burst that was served whole (a key's issuance budget has no
 * second token to settle a straddled boundary on: only a fresh window can).
 * @param {number} limit
 * @param {number} windowMs
 * @param {BurstCounts} burst
 * @returns {LimitVerdict}
 */
export function judgeFreshWindow(limit, windowMs, burst) {
  if (tooSlowForWindow(burst.spanMs, windowMs))
    return {
      kind: 'inconclusive',
      reason: `the burst in a fresh window took ${burst.spanMs} ms, more than half a window (${Math.round(windowMs)} ms)`,
    };
  const byTarget = tooSlowByTargetClock(burst.datedSeconds, burst.spanMs, windowMs);
  if (byTarget) return { kind: 'inconclusive', reason: byTarget };
  return judgeSecondBurst(limit, burst, `a fresh window served only ${burst.accepted}`);
}

/**
 * Whether the verdict says the requests were never refused at all: for writes that create nothing, a target that may
 * not count them (only real creates can tell). Decided here once, for the probe that then creates and the check.
 * @param {LimitVerdict | undefined} v
 */
export function neverLimited(v) {
  return v !== undefined && v.kind === 'looser' && v.accepted === 'unlimited';
}

/**
 * A burst never refused, then a request on its token a moment later refused as over the limit: the burst's requests
 * were counted, only late (a counter that lags its check), so more than the limit were served in one window. A request
 * served then, or refused otherwise, leaves the verdict as it was (the target may not count such requests).
 * @param {LimitVerdict} v
 * @param {number} served     requests the never-refused burst had served
 * @param {boolean} refusedAfter  whether the later request was refused as over the limit
 * @param {number} afterMs    real ms between the burst's end and that request
 * @returns {LimitVerdict}
 */
export function judgeLateCount(v, served, refusedAfter, afterMs) {
  if (!neverLimited(v) || !refusedAfter) return v;
  return {
    kind: 'looser',
    accepted: served,
    note: `none was refused, yet a request ${afterMs} ms after the burst was: they were counted, late`,
  };
}

/**
 * A limit verdict in words.
 * @param {number} limit
 * @param {string} what   "reads", "token issuances"...
 * @param {LimitVerdict} v
 */
export function describeVerdict(limit, what, v) {
  switch (v.kind) {
    case 'exact':
      return `${limit} ${what} served, the next refused${v.note ? ` (${v.note})` : ''}`;
    case 'stricter':
      return `only ${v.accepted} ${what} served before refusals; the documented limit is ${limit}`;
    case 'looser':
      return v.accepted === 'unlimited'
        ? `no limit: ${what} were never refused`
        : `${v.accepted} ${what} served; the documented limit is ${limit}${v.note ? ` (${v.note})` : ''}`;
    default:
      return `inconclusive: ${v.reason}`;
  }
}

// ------------------------------------------------------------------ the k6 scripts' windows

/** @typedef {'pass' | 'stricter' | 'looser' | 'shared' | 'inconclusive'} WindowVerdictName */

/**
 * @typedef {object} WindowCounts
 * @property {number} sent
 * @property {number} accepted
 * @property {number} refused
 */

/**
 * @typedef {object} WindowVerdict
 * @property {number} window
 * @property {number} sent
 * @property {number} accepted
 * @property {number} refused
 * @property {number} unanswered
 * @property {WindowVerdictName} verdict
 * @property {string} reason
 */

/**
 * Judges one 60-target-second window of a limit probe, on the requests sent inside it.
 * - not more than `limit` sent: inconclusive (not filled; nothing it shows can be told from the target's windows
 *   lying elsewhere than the probe's);
 * - more than `limit` accepted: looser (the target let through more than documented);
 * - exactly `limit` accepted: pass;
 * - fewer than `limit` accepted while refusals came before the limit could have been used up (even counting every
 *   unanswered request as accepted): stricter;
 * - otherwise inconclusive: unanswered requests hide the count.
 * @param {number} limit
 * @param {WindowCounts} counts
 * @param {number} [index]
 * @returns {WindowVerdict}
 */
export function judgeWindow(limit, counts, index) {
  const w = index === undefined ? 0 : index;
  const sent = nonNegative(counts.sent);
  const accepted = nonNegative(counts.accepted);
  const refused = nonNegative(counts.refused);
  const unanswered = Math.max(0, sent - accepted - refused);
  /** @param {WindowVerdictName} verdict @param {string} reason @returns {WindowVerdict} */
  const result = (verdict, reason) => ({
    window: w,
    sent,
    accepted,
    refused,
    unanswered,
    verdict,
    reason: `window ${w}: ${reason}`,
  });
  switch (countVerdict(limit, { sent, accepted, refused })) {
    case 'not-filled':
      return result(
        'inconclusive',
        `not filled, ${sent} requests sent, at most the limit of ${limit}: the window proves nothing (lower CONFORMANCE_TIME_SCALE, or give k6 more VUs)`
      );
    case 'looser':
      return result('looser', `${accepted} requests accepted, more than the limit of ${limit} (${sent} sent)`);
    case 'exact':
      return result('pass', `exactly ${limit} of ${sent} requests accepted`);
    case 'stricter':
      return result(
        'stricter',
        `only ${accepted} requests accepted before refusals began (${refused} refused of ${sent} sent); the limit is ${limit}`
      );
    default:
      return result(
        'inconclusive',
        `${accepted} accepted and ${unanswered} unanswered of ${sent} sent; the unanswered requests hide whether the limit is ${limit}`
      );
  }
}

/** @param {number} n */
function nonNegative(n) {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/**
 * @typedef {object} ProbeVerdict
 * @property {WindowVerdictName} verdict
 * @property {string} message
 * @property {WindowVerdict[]} windows
 */

/**
 * Judges each window of a probe. A window that follows one that was not filled is inconclusive whatever its
 * counts: the target's previous window may have had budget left, which this window's first requests could
 * have spent and been counted for.
 * @param {number} limit
 * @param {WindowCounts[]} windows
 * @returns {WindowVerdict[]}
 */
function judgeWindows(limit, windows) {
  const judged = windows.map((w, i) => judgeWindow(limit, w, i));
  return judged.map((v, i) => {
    const previous = judged[i - 1];
    if (!previous || previous.sent > limit || v.verdict === 'inconclusive') return v;
    return Object.assign({}, v, {
      verdict: /** @type {WindowVerdictName} */ ('inconclusive'),
      reason: `window ${i}: follows window ${i - 1}, which was not filled: its first requests may have spent what the target's window ${i - 1} had left (${v.accepted} accepted of ${v.sent} sent)`,
    });
  });
}

/**
 * Judges a whole probe from its windows. Pass needs every window to pass; a looser (or stricter) window makes the
 * probe looser (stricter) unless other windows point the other way, which happens when the target's windows are
 * not aligned with the probe's (e.g. clock-aligned windows): that is inconclusive. No windows: inconclusive.
 * @param {number} limit
 * @param {WindowCounts[]} windows
 * @returns {ProbeVerdict}
 */
export function judgeProbe(limit, windows) {
  const judged = judgeWindows(limit, windows);
  if (judged.length === 0) return { verdict: 'inconclusive', message: 'no window was measured', windows: judged };
  const looser = judged.filter((w) => w.verdict === 'looser');
  const stricter = judged.filter((w) => w.verdict === 'stricter');
  const inconclusive = judged.filter((w) => w.verdict === 'inconclusive');
  const summary = judged.map((w) => `${w.accepted}/${w.sent}`).join(', ');
  if (looser.length && stricter.length) {
    return {
      verdict: 'inconclusive',
      message: `windows disagree (accepted/sent per window: ${summary}): the target's windows do not line up with the probe's, e.g. they are aligned to the clock; ${looser[0].reason}; ${stricter[0].reason}`,
      windows: judged,
    };
  }
  if (looser.length)
    return {
      verdict: 'looser',
      message: `limit ${limit} not enforced: ${looser.map((w) => w.reason).join('; ')}`,
      windows: judged,
    };
  if (stricter.length)
    return {
      verdict: 'stricter',
      message: `limit stricter than ${limit}: ${stricter.map((w) => w.reason).join('; ')}`,
      windows: judged,
    };
  if (inconclusive.length)
    return { verdict: 'inconclusive', message: inconclusive.map((w) => w.reason).join('; '), windows: judged };
  return {
    verdict: 'pass',
    message: `exactly ${limit} accepted in each of ${judged.length} windows (accepted/sent: ${summary})`,
    windows: judged,
  };
}

/**
 * @typedef {object} ScopeVerdict
 * @property {WindowVerdictName} verdict   pass, shared, or inconclusive
 * @property {string} message
 * @property {WindowVerdict[]} a  windows of the first token
 * @property {WindowVerdict[]} b  windows of the second token
 */

/**
 * Judges the scope probe: two tokens of one API key, each pushed over the read limit at the same time.
 * - every window of both tokens passes: each token had its own budget (pass);
 * - in a window where both tokens were filled, the two together got no more than one token's limit: the budget
 *   is shared by the key's tokens, or by the address they come from (shared: the seed says per token);
 * - otherwise inconclusive (a per-token budget of another size is the read probe's finding, not this one's).
 * @param {number} limit
 * @param {WindowCounts[]} a
 * @param {WindowCounts[]} b
 * @returns {ScopeVerdict}
 */
export function judgeScope(limit, a, b) {
  const ja = judgeWindows(limit, a);
  const jb = judgeWindows(limit, b);
  const n = Math.min(ja.length, jb.length);
  if (n === 0) return { verdict: 'inconclusive', message: 'no window was measured', a: ja, b: jb };
  /** @type {string[]} */
  const shared = [];
  /** @type {string[]} */
  const unclear = [];
  for (let i = 0; i < n; i++) {
    const x = ja[i];
    const y = jb[i];
    const bothFilled =
      x.sent > limit && y.sent > limit && (i === 0 || (ja[i - 1].sent > limit && jb[i - 1].sent > limit));
    if (bothFilled && x.accepted + y.accepted <= limit && x.refused + y.refused > 0) {
      shared.push(
        `window ${i}: the two tokens got ${x.accepted} + ${y.accepted} = ${x.accepted + y.accepted} reads accepted together (${x.sent} + ${y.sent} sent), no more than one token's limit of ${limit}`
      );
    } else if (x.verdict !== 'pass' || y.verdict !== 'pass') {
      unclear.push(`token 1 ${x.reason}; token 2 ${y.reason}`);
    }
  }
  if (shared.length) {
    return {
      verdict: 'shared',
      message: `the read budget is not per token: it is shared by the tokens of one API key (or by their address); ${shared.join('; ')}`,
      a: ja,
      b: jb,
    };
  }
  if (unclear.length) return { verdict: 'inconclusive', message: unclear.join('; '), a: ja, b: jb };
  return {
    verdict: 'pass',
    message: `each of two tokens of one API key had its own budget: exactly ${limit} reads accepted per token in each of ${n} windows`,
    a: ja,
    b: jb,
  };
}

/** Target-seconds the run must have counted for a Date header's whole seconds to tell a clock's rate. */
const CLOCK_READING_MIN_SECONDS = 10;

/**
 * The rate of the target's clock against the one the run assumes (--time-scale), where two of the target's own
 * readings show them apart: its Retry-After fell from `first` to `later` target-seconds, and its Date header advanced
 * `dated` seconds, while the run counted `elapsed`. Read so only where both moved, both by under a third (or both by
 * over three times) of what the run counted: a frozen or wrapped countdown (a window that never resets) beside a Date
 * that kept time is the target's own doing, and judged as such.
 * @param {{ first?: number, later?: number, dated?: number, elapsed: number }} r
 * @returns {number | undefined}
 */
export function clockRateOf({ first, later, dated, elapsed }) {
  if (first === undefined || later === undefined || dated === undefined || !(first > later)) return undefined;
  if (!(elapsed >= CLOCK_READING_MIN_SECONDS)) return undefined;
  const rate = (first - later) / elapsed;
  const byDate = dated / elapsed;
  const slow = (/** @type {number} */ x) => x < 1 / 3;
  const fast = (/** @type {number} */ x) => x > 3;
  return (slow(rate) && slow(byDate)) || (fast(rate) && fast(byDate)) ? rate : undefined;
}

/**
 * How many times faster than the run assumes (--time-scale) the target's clock ran, where its Date header advanced
 * `dated` seconds while the run counted `elapsed` target-seconds, and by over three times: the run waited longer than
 * it needed (every verdict stands, each wait was a multiple of the target's), so it is said, not judged.
 * @param {{ dated?: number, elapsed: number }} r
 * @returns {number | undefined}
 */
export function fasterClockOf({ dated, elapsed }) {
  if (dated === undefined || !(elapsed >= CLOCK_READING_MIN_SECONDS)) return undefined;
  const rate = dated / elapsed;
  return rate > 3 ? rate : undefined;
}
