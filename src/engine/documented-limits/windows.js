// @ts-check
// Where limit windows begin and end under a time scale (target-seconds per real second): the engine's bursts and
// waits, and the k6 scripts' arrival slots. ES2015, as limits.js says.
import { WINDOW_SECONDS, WINDOW_TARGET_MS } from './limits.js';

/**
 * Real milliseconds of one 60-target-second window under a time scale.
 * @param {number} timeScale
 */
export function windowRealMs(timeScale) {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`invalid time scale ${timeScale}`);
  return WINDOW_TARGET_MS / timeScale;
}

/**
 * Below this, a window is too short to measure from the suite's side (event-loop lag, a loaded machine): at a time
 * scale that makes windows shorter, the probes do not judge and say so, rather than give a verdict timing decided.
 */
const MIN_MEASURABLE_WINDOW_MS = 250;

/**
 * Why a window is too short to measure at this time scale, or undefined when it is long enough.
 * @param {number} timeScale
 * @param {string} scaleName  how the user sets the time scale, for the hint
 * @returns {string | undefined}
 */
export function unmeasurableWindow(timeScale, scaleName) {
  const ms = windowRealMs(timeScale);
  if (ms >= MIN_MEASURABLE_WINDOW_MS) return undefined;
  return `at time scale ${timeScale} a window lasts ${Math.round(ms)} ms of real time, too short to measure (at least ${MIN_MEASURABLE_WINDOW_MS} ms: ${scaleName} ${Math.floor(WINDOW_TARGET_MS / MIN_MEASURABLE_WINDOW_MS)} or lower)`;
}

/**
 * The real moment (ms since the epoch) `targetSeconds` target-seconds after the real moment `fromMs`.
 * @param {number} fromMs
 * @param {number} targetSeconds
 * @param {number} timeScale
 */
export function realMomentAfter(fromMs, targetSeconds, timeScale) {
  return fromMs + (targetSeconds * 1000) / timeScale;
}

/**
 * The real moment a refused budget is back for sure: one window and a second after the refusal.
 * @param {number} refusedAtMs
 * @param {number} timeScale
 */
export function windowOverAfter(refusedAtMs, timeScale) {
  return realMomentAfter(refusedAtMs, WINDOW_SECONDS + 1, timeScale);
}

/**
 * Whether a burst took too long to show a limit: it must fit in half a window, so that no window boundary of the
 * target's can fall inside it more than once.
 * @param {number} spanMs
 * @param {number} windowMs
 */
export function tooSlowForWindow(spanMs, windowMs) {
  return spanMs >= windowMs / 2;
}

/**
 * Why a burst proves nothing by the target's own clock: its Date header advanced `datedSeconds` while it was sent, more
 * than half a window (whole seconds: a difference of D shows at least D-1 passed), and over three times what the run's
 * clock counted for it. The run's time scale then is not the target's: a window the run thinks is a minute long came
 * and went on the target inside the burst. A burst that was itself slow is not the clock's doing.
 * @param {number | undefined} datedSeconds
 * @param {number} spanMs    real ms the burst took
 * @param {number} windowMs  real ms of a window at the run's time scale
 * @returns {string | undefined}
 */
export function tooSlowByTargetClock(datedSeconds, spanMs, windowMs) {
  if (datedSeconds === undefined || datedSeconds - 1 < WINDOW_SECONDS / 2) return undefined;
  const counted = (spanMs / windowMs) * WINDOW_SECONDS;
  if (datedSeconds - 1 <= 3 * counted) return undefined;
  return `the target's Date advanced ${datedSeconds} s while the burst was sent, more than half its ${WINDOW_SECONDS}-s window, where the run's clock counted ${Math.round(counted)} s: its clock runs faster than the run's time scale assumes (rerun at the target's own time scale)`;
}

/**
 * @typedef {object} ProbePlan
 * @property {number} limit          documented accepted requests per window
 * @property {number} over           requests sent beyond the limit in each window ("just above" the rate)
 * @property {number} guard          idle arrival slots per window (no request sent): lead + tail
 * @property {number} lead           idle slots at the start of every window but the first
 * @property {number} slotsPerWindow arrival-rate iterations per window = limit + over + guard
 * @property {number} windowMs       real length of a window
 * @property {number} slotMs         real spacing of the arrival slots
 */

/**
 * How an arrival-rate probe (the k6 scripts) paces one limit: each window sends `limit + over` requests and keeps
 * `guard` arrival slots idle, so the limit is pushed about 10% above its rate. The idle slots sit on both sides of
 * every window boundary (`lead` at the start of each window after the first, the rest at the end), so no request is
 * sent close to a boundary: a request that reaches the target a little early or late still lands in its own window.
 * The first window starts with a request: the probe's first request opens the target's window.
 * @param {number} limit
 * @param {number} timeScale
 * @returns {ProbePlan}
 */
export function probePlan(limit, timeScale) {
  const over = Math.max(2, Math.ceil(limit / 10));
  const guard = over;
  const lead = Math.ceil(guard / 3);
  const slotsPerWindow = limit + over + guard;
  // Whole milliseconds, the same value the scenario's timeUnit gets (k6Duration), so both clocks agree.
  const windowMs = Math.max(1, Math.round(windowRealMs(timeScale)));
  return { limit, over, guard, lead, slotsPerWindow, windowMs, slotMs: windowMs / slotsPerWindow };
}

/**
 * @typedef {object} Slot
 * @property {number} window     window index counted from the start of the scenario (-1 before it)
 * @property {number} position   arrival slot within the window
 */

/**
 * Which window and slot a moment belongs to, from the real time elapsed since the probe started: the moment a
 * request is sent decides its window, so a late or dropped iteration never shifts a later one.
 * @param {number} elapsedMs
 * @param {ProbePlan} plan
 * @returns {Slot}
 */
export function slotAt(elapsedMs, plan) {
  if (!(elapsedMs >= 0)) return { window: -1, position: 0 };
  const window = Math.floor(elapsedMs / plan.windowMs);
  const position = Math.min(plan.slotsPerWindow - 1, Math.floor((elapsedMs - window * plan.windowMs) / plan.slotMs));
  return { window, position };
}

/**
 * @typedef {object} SlotRole
 * @property {boolean} send     a request is sent in this slot
 * @property {boolean} limited  the documented limit says this request is over the allowance
 */

/**
 * What a slot of a probe window does: the first window sends from its first slot (that request opens the
 * target's window), every later window after `lead` idle slots; then `limit + over` requests; then idle.
 * @param {ProbePlan} plan
 * @param {number} probeWindow  window index within the probe
 * @param {number} position
 * @returns {SlotRole}
 */
export function slotRole(plan, probeWindow, position) {
  const first = probeWindow === 0 ? 0 : plan.lead;
  const index = position - first;
  return { send: index >= 0 && index < plan.limit + plan.over, limited: index >= plan.limit };
}

/**
 * When a probe that follows another on the same tokens may start: one window plus 10% after the earlier one
 * started its last window, so the target's last window of the earlier probe has ended.
 * @param {ProbePlan} plan
 * @param {number} windows  windows of the earlier probe
 */
export function afterProbeMs(plan, windows) {
  return Math.round(plan.windowMs * (windows + 0.1));
}
