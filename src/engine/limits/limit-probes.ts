import { Waits } from '../transport/waits.ts';
import { waitsLong, type RunConfig } from '../config/config.ts';
import type { HttpClient } from '../transport/http.ts';
import { StartupFailure, mayBeSpentBudget } from '../identity/startup-failure.ts';
import type { TokenManager } from '../identity/tokens.ts';
import type { KeyName } from '../config/config.ts';
import type { Exchange } from '../transport/exchange.ts';
import { isSuccess, statusText } from '../transport/exchange.ts';
import { kindCreatedAt, type Ledger } from '../target/ledger.ts';
import {
  burst,
  judgeFresh,
  judgeLimit,
  type Burst,
  type BurstPlan,
  type Classifier,
  type LimitVerdict,
} from './probes.ts';
import {
  mayMeanRealSeconds,
  parseRetryAfter,
  realReadingUnjudged,
  REAL_READING_TOLERANCE_SECONDS,
} from '../transport/retry-after.ts';
import { LIMITS, WINDOW_SECONDS } from '../documented-limits/limits.js';
import { judgeLateCount, neverLimited } from '../documented-limits/verdicts.js';
import { realMomentAfter, unmeasurableWindow, windowOverAfter, windowRealMs } from '../documented-limits/windows.js';
import { BURSTS, PROBE_KNOBS, burstConcurrency } from './probe-knobs.ts';
import { observeCrossCharge, type CrossObservation, type CrossSkipped } from './cross-budget.ts';
import { probeWindowKind, type WindowKind, type WindowKindObservation } from './window-kind.ts';
import { observeWindowLength, type WindowLengthObservation } from './window-length.ts';

const { inFlight: IN_FLIGHT, issuanceInFlight: ISSUANCE_IN_FLIGHT, windowSlackMs: WINDOW_SLACK_MS } = PROBE_KNOBS;

export interface ResetObservation {
  /**
   * The rejection waited from: the probe's first, or one met after it when the run's own request on the token (the
   * cross-charge witness) was served and so took the slot that first rejection's Retry-After promised.
   */
  rejection: Exchange;
  retryAfter?: number;
  /** The request sent once Retry-After had passed, read as target-seconds (+ 1). */
  afterRetryAfter?: Exchange;
  /**
   * Under --time-scale, the request sent once Retry-After had passed read as real seconds (+ 1): a scaled target may
   * mean either, and both readings are right when the budget is back by then.
   */
  afterRetryAfterReal?: Exchange;
  /** The request sent once a whole window had passed since the rejection. */
  afterWindow?: Exchange;
  /** Why the real-seconds reading was not tried: its tolerance is no smaller than the window at this time scale. */
  realReadingUnjudged?: string;
  /** Which wait the probe's own classifier saw the budget back after (none: not back even after a window). */
  backAfter?: 'retry-after' | 'retry-after-real' | 'window';
}

export interface LimitProbe {
  limit: number;
  what: string;
  verdict: LimitVerdict;
  /** Full and certify: the budget spent again once back, and once more shortly before a minute (limits.window-length). */
  windowLength?: WindowLengthObservation;
  bursts: Burst[];
  firstRejection?: Exchange;
  /** After bursts never refused, a request on the same token a moment later that was: the bursts were counted late. */
  lateRefusal?: Exchange;
  /** A request on another token (reads, writes) or key (issuance) right after this budget was spent. */
  scope?: Exchange;
  /** Issuance: an exchange of the read-only key (another key, perhaps of the same organization) right after. */
  scopeReadonly?: Exchange;
  /** Reads, writes: the other class sent on the token whose budget was spent (cross-budget.ts), or why not. */
  cross?: CrossObservation | CrossSkipped;
  /** The refusal the cross observation followed, where the first one's witness found the budget back and it was sent again. */
  crossAfter?: Exchange;
  reset?: ResetObservation;
  note?: string;
}

/** The read budget probed on another key's tokens (a clause over every subject the run holds). */
export interface SubjectProbe {
  key: KeyName;
  probe: LimitProbe;
}

export interface LimitsReport {
  token: LimitProbe;
  read?: LimitProbe;
  write?: LimitProbe;
  /** The read probe again on the tokens of every other key the run holds (reads only: a key may not write). */
  readBySubject?: SubjectProbe[];
  /** The write probe again on the second organization's key: run only once the primary key's was exact. */
  writeBySubject?: SubjectProbe[];
  /** The read probe with its reads spread over every read operation the run knows, not the list alone. */
  readAcrossOperations?: LimitProbe & { operations: string[] };
  /** The write probe with its writes spread over every write operation of the document (on ids that exist nowhere). */
  writeAcrossOperations?: LimitProbe & { operations: string[] };
  /** Why the read and write probes could not run (the target issued no token for them: a budget that never came back). */
  error?: Error;
  /** The declared window kind observed: full profile, where the overlay declares one. */
  windowKind?: WindowKindObservation;
}

/** A read the operations probe may spread its reads over: a GET, or a HEAD where an Allow listed it (RFC 9110 §9.3.2). */
export interface ReadRequest {
  method: 'GET' | 'HEAD';
  /** The path with its query, as the run sent it. */
  path: string;
}

interface Deps {
  config: RunConfig;
  http: HttpClient;
  tokens: TokenManager;
  ledger: Ledger;
  /** Read requests besides the list's GET that the run saw served (a task, a VM's record, HEAD), for the operations probe. */
  readRequests?: () => ReadRequest[];
  /** Writes of every write operation of the document that change nothing (ids that exist nowhere, empty bodies). */
  writeRequests?: () => Array<{ method: string; path: string; json?: unknown }>;
  /** The window waits of the full profile, announced to whoever watches the run. */
  waits?: Waits;
  /** The window kind the overlay declares (x-rate-limit-accounting window): observed in the full profile. */
  declaredWindow?: WindowKind;
}

const windowMs = (config: RunConfig) => windowRealMs(config.timeScale);
const tooShort = (config: RunConfig): string | undefined =>
  unmeasurableWindow(config.timeScale, config.names.timeScale);
const is4xx = (ex: Exchange) => !!ex.response && ex.response.status >= 400 && ex.response.status < 500;

const firstRejection = (bursts: Burst[]) => bursts.flatMap((b) => b.rejections)[0];

/** Waits out Retry-After and then, if still refused, the rest of a window; records both answers. */
export async function observeReset(
  d: Pick<Deps, 'config' | 'waits'>,
  what: string,
  rejection: Exchange,
  retry: () => Promise<Exchange>,
  accepted: (ex: Exchange) => boolean
): Promise<ResetObservation> {
  const { config } = d;
  const waits = d.waits ?? new Waits();
  const rejectedAt = Date.parse(rejection.startedAt) + rejection.durationMs;
  const retryAfter = parseRetryAfter(rejection, config.timeScale);
  const obs: ResetObservation = { rejection, retryAfter };
  if (retryAfter !== undefined && retryAfter <= WINDOW_SECONDS) {
    await waits.sleep(
      realMomentAfter(rejectedAt, retryAfter + 1, config.timeScale) - Date.now(),
      `the Retry-After of the ${what} rejection (${retryAfter} target s)`,
      'limits',
      'limit-window'
    );
    obs.afterRetryAfter = await retry();
    if (accepted(obs.afterRetryAfter)) return { ...obs, backAfter: 'retry-after' };
    // Read as real seconds (a scaled target may mean them), where the reading's tolerance is smaller than the window.
    obs.realReadingUnjudged = realReadingUnjudged(retryAfter, config.timeScale);
    if (mayMeanRealSeconds(retryAfter, config.timeScale) && retryAfter > 0 && !obs.realReadingUnjudged) {
      await waits.sleep(
        realMomentAfter(rejectedAt, retryAfter + REAL_READING_TOLERANCE_SECONDS, 1) - Date.now(),
        `the Retry-After of the ${what} rejection, read as real seconds`,
        'limits',
        'limit-window'
      );
      obs.afterRetryAfterReal = await retry();
      if (accepted(obs.afterRetryAfterReal)) return { ...obs, backAfter: 'retry-after-real' };
    }
  }
  await waits.sleep(
    windowOverAfter(rejectedAt, config.timeScale) - Date.now(),
    `the ${what} window to pass (a minute of target time)`,
    'limits',
    'limit-window'
  );
  obs.afterWindow = await retry();
  return accepted(obs.afterWindow) ? { ...obs, backAfter: 'window' } : obs;
}

/**
 * Token issuance: 11 exchanges of the primary key, 4 at a time. The first answer doubles as the run's preflight;
 * the tokens it yields become the run's pool, so nothing else needs to spend the key's budget this window.
 */
const issuanceClassifier: Classifier = {
  accepted: (ex) => isSuccess(ex) && typeof (ex.response?.json as { token?: unknown })?.token === 'string',
  rejected: (ex) => is4xx(ex) && ex.response!.status !== 400 && ex.response!.status !== 401,
};

const issueWithPrimary = (d: Deps) => () => d.tokens.exchange(d.config.keys.primary!, 'limits.token-limit');

async function probeIssuance(d: Deps): Promise<LimitProbe> {
  const send = issueWithPrimary(d);
  const first = await firstIssuanceBurst(d, send);
  // Three lanes hold a token each, and every call borrows whichever has room (call.ts): the checks' writes and the
  // cleanup's deletes spread over three budgets of 54 a minute. The other tokens stay spares for the probes, which
  // take tokens of their own (five in quick; token-expiry and the window probes one or two more in full).
  adoptIssued(d, first, ['main', 'generated', 'overflow']);
  const bursts: Burst[] = [first];
  const unmeasurable = tooShort(d.config);
  // The burst still was the preflight and filled the pool; it just proves nothing about a window this short.
  if (unmeasurable)
    return {
      limit: LIMITS.tokens.limit,
      what: 'token issuances',
      verdict: { kind: 'inconclusive', reason: unmeasurable },
      bursts,
    };
  const { verdict, note, resetFrom } = await judgeIssuance(d, send, first, bursts);
  const probe: LimitProbe = {
    limit: LIMITS.tokens.limit,
    what: 'token issuances',
    verdict,
    bursts,
    firstRejection: firstRejection(resetFrom) ?? firstRejection(bursts),
    note,
  };
  await exchangeOtherKeys(d, probe);
  return probe;
}

/** The primary key's tokens a burst was issued join the run's pool, the first ones on the lanes named. */
function adoptIssued(d: Deps, b: Burst, lanes: string[]): void {
  for (const ex of b.exchanges.filter(issuanceClassifier.accepted))
    d.tokens.adopt(
      'primary',
      (ex.response!.json as { token: string }).token,
      ex.response!.json as Record<string, unknown>,
      ex,
      lanes.shift()
    );
}

/** The first issuance burst, the run's preflight: a window later when the key's window was spent before the run. */
async function firstIssuanceBurst(d: Deps, send: () => Promise<Exchange>): Promise<Burst> {
  const cls = issuanceClassifier;
  // The whole first burst in flight at once: the run's preflight costs a distant target one round trip, not three.
  let first = await burst(BURSTS.overfill(LIMITS.tokens.limit, LIMITS.tokens.limit + 1), send, cls);
  // No token at all, but refused as over a limit: the key is shared (a run just before, another pipeline) and its window
  // is spent. A window later the run can start, and owns that window. An answer that is not the API's (an HTML 404, a
  // page of another host) is conclusive at once: no wait changes it.
  if (first.accepted === 0 && first.rejections.some(mayBeSpentBudget) && !tooShort(d.config)) {
    await (d.waits ?? new Waits()).sleep(
      windowMs(d.config) + WINDOW_SLACK_MS,
      "the key's issuance window, spent before the run began, to pass",
      'limits',
      'limit-window'
    );
    first = await burst(BURSTS.overfill(LIMITS.tokens.limit, ISSUANCE_IN_FLIGHT), send, cls);
  }
  // No token at all: the run cannot start; the first request sent says what the target did.
  if (first.accepted === 0)
    throw new StartupFailure(
      first.exchanges.reduce((a, b) => (b.seq < a.seq ? b : a)),
      'primary',
      d.config
    );
  return first;
}

/** The issuance verdict, how it was reached, and the bursts whose first refusal the reset is watched from. */
interface IssuanceJudgement {
  verdict: LimitVerdict;
  note?: string;
  resetFrom: Burst[];
}

/**
 * The verdict on the first burst; in full and certify, where that burst cannot settle it, the verdict on a burst a
 * whole window later (each burst sent is added to `bursts`).
 */
async function judgeIssuance(
  d: Deps,
  send: () => Promise<Exchange>,
  first: Burst,
  bursts: Burst[]
): Promise<IssuanceJudgement> {
  let judged: IssuanceJudgement = {
    verdict: judgeLimit(LIMITS.tokens.limit, windowMs(d.config), first),
    note: undefined,
    resetFrom: bursts,
  };
  // Fewer than the limit served: the key's window may hold issuances the run did not send (keys are shared), so the
  // run owns no window yet. Full and certify wait one out and judge a burst there; quick does not judge at all.
  if (judged.verdict.kind === 'stricter' && !waitsLong(d.config)) {
    judged.verdict = {
      kind: 'inconclusive',
      reason: `only ${first.accepted} token issuances were served before a refusal, in a window the run cannot own: the key may have been exchanged just before by another client (or a run before this one)`,
    };
  } else if (judged.verdict.kind === 'stricter') {
    judged = await judgeOwnedIssuanceWindow(d, send, first, bursts);
  }
  if (judged.verdict.kind === 'inconclusive' && first.rejections.length === 0 && waitsLong(d.config)) {
    // One key, one budget: only a fresh window can tell a straddled boundary from a looser limit.
    judged = { ...judged, ...(await judgeFreshIssuanceWindow(d, send, bursts)) };
  }
  return judged;
}

/** Waits out a whole issuance window, then sends a burst of `shape`: its tokens join the pool, the burst `bursts`. */
async function issuanceBurstInFreshWindow(
  d: Deps,
  send: () => Promise<Exchange>,
  bursts: Burst[],
  shape: BurstPlan,
  why: string
): Promise<Burst> {
  await (d.waits ?? new Waits()).sleep(windowMs(d.config) + WINDOW_SLACK_MS, why, 'limits', 'limit-window');
  const b = await burst(shape, send, issuanceClassifier);
  adoptIssued(d, b, []);
  bursts.push(b);
  return b;
}

/** Fewer than the limit served at first: a burst in a window the run waited out for itself is judged instead. */
async function judgeOwnedIssuanceWindow(
  d: Deps,
  send: () => Promise<Exchange>,
  first: Burst,
  bursts: Burst[]
): Promise<IssuanceJudgement> {
  const owned = await issuanceBurstInFreshWindow(
    d,
    send,
    bursts,
    BURSTS.respend(LIMITS.tokens.limit, ISSUANCE_IN_FLIGHT),
    'a fresh issuance window the run owns (a minute of target time)'
  );
  let verdict = judgeFresh(LIMITS.tokens.limit, windowMs(d.config), owned);
  // Fewer again, in a window the run waited out for itself: the target's own limit is stricter.
  if (
    verdict.kind === 'inconclusive' &&
    owned.accepted < LIMITS.tokens.limit &&
    owned.rejections.length > 0 &&
    owned.spanMs < windowMs(d.config) / 2
  )
    verdict = { kind: 'stricter', accepted: owned.accepted };
  return {
    verdict,
    note: `judged on a burst a whole window after the first, which met a refusal after ${first.accepted} (the key's window may have held other clients' issuances)`,
    // The window to watch reset is the owned one (the first was spent again by this burst).
    resetFrom: [owned],
  };
}

/** A first burst that met no refusal, judged again on a burst sent a whole window later. */
async function judgeFreshIssuanceWindow(
  d: Deps,
  send: () => Promise<Exchange>,
  bursts: Burst[]
): Promise<Pick<IssuanceJudgement, 'verdict' | 'note'>> {
  const second = await issuanceBurstInFreshWindow(
    d,
    send,
    bursts,
    BURSTS.untilRefusal(LIMITS.tokens.limit, ISSUANCE_IN_FLIGHT),
    'a fresh issuance window (a minute of target time)'
  );
  return {
    verdict: judgeFresh(LIMITS.tokens.limit, windowMs(d.config), second),
    note: 'judged on a burst sent a whole window after the first',
  };
}

/** Once the primary key's issuances were refused: the other keys' issuances, side by side (each its own budget). */
async function exchangeOtherKeys(d: Deps, probe: LimitProbe): Promise<void> {
  const [scope, scopeReadonly] = await Promise.all([
    probe.firstRejection && d.tokens.has('second')
      ? d.tokens.exchange(d.config.keys.second!, 'limits.key-scope')
      : undefined,
    probe.firstRejection && d.tokens.has('readonly')
      ? d.tokens.exchange(d.config.keys.readonly!, 'limits.key-scope')
      : undefined,
  ]);
  if (scope) probe.scope = scope;
  if (scopeReadonly) probe.scopeReadonly = scopeReadonly;
}

interface RequestProbeSpec {
  limit: number;
  what: string;
  sentBy: string;
  /** Whose tokens: the primary key's unless said. */
  key?: KeyName;
  /** A probe of the domain (another subject, other operations): judged on its bursts alone, no scope, cross or reset. */
  judgeOnly?: true;
  send(token: string): Promise<Exchange>;
  /** The answer every counted-and-allowed request gets (learned from the first one). */
  baseline?: (ex: Exchange) => boolean;
  /**
   * The rate-limit refusal another probe met: requests of several operations, each refused for its own reason (404,
   * 400), count as served unless they get this answer (its status and error code).
   */
  rejectedLike?: Exchange;
}

/** Lets one burst run at a time: probes that share a client (and, embedded, a process) would slow each other's bursts. */
class Turns {
  private last: Promise<void> = Promise.resolve();
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.last;
    let release!: () => void;
    this.last = new Promise<void>((r) => (release = r));
    await before;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/** Reads or writes on dedicated tokens: exactly limit+1 on one, then (if all were served) until refusal on another. */
async function probeRequests(d: Deps, spec: RequestProbeSpec, scopeLane: string, turns: Turns): Promise<LimitProbe> {
  const unmeasurable = tooShort(d.config);
  if (unmeasurable) return unjudgedProbe(spec, unmeasurable);
  const token = async () => (await d.tokens.issue(spec.key ?? 'primary', spec.sentBy)).token;
  let t1: string;
  try {
    t1 = await token();
  } catch (err) {
    // A probe of the domain whose token is refused (an issuance budget per address or organization, or one that never
    // comes back) is not judged; it never takes the main probes' verdicts down with it.
    if (!spec.judgeOnly) throw err;
    return unjudgedProbe(
      spec,
      `no token for the ${spec.key ?? 'primary'} key: ${err instanceof Error ? err.message : String(err)}`
    );
  }
  const firstAnswer = await spec.send(t1);
  const served = spec.baseline ?? ((ex: Exchange) => isSuccess(ex));
  const cls = requestClassifier(spec, firstAnswer.response?.status);
  if (!served(firstAnswer))
    return unjudgedProbe(spec, `the first ${spec.what.replace(/s$/, '')} answered ${statusText(firstAnswer)}`);
  // The bursts take turns with the other probe's; the waits for a window's reset below overlap freely.
  const { bursts, verdict, held, inFlight, lateRefusal } = await turns.run(() =>
    requestBursts(d, spec, cls, { t1, firstAnswer, token })
  );
  const probe: LimitProbe = {
    limit: spec.limit,
    what: spec.what,
    verdict,
    bursts,
    firstRejection: firstRejection(bursts),
    ...(lateRefusal ? { lateRefusal } : {}),
  };
  if (probe.firstRejection && !spec.judgeOnly)
    await observeAfterRefusal(d, spec, probe, { scopeLane, turns, cls, held, firstAnswer, inFlight, token });
  return probe;
}

/** A request probe that sent no burst and judged nothing, and why. */
function unjudgedProbe(spec: RequestProbeSpec, reason: string): LimitProbe {
  return { limit: spec.limit, what: spec.what, verdict: { kind: 'inconclusive', reason }, bursts: [] };
}

/** What counts as served and as refused for the limit, given the status the probe's first request got. */
function requestClassifier(spec: RequestProbeSpec, baselineStatus: number | undefined): Classifier {
  // A 401 is the token refused (it expired mid-burst on a fast clock), not the limit: neither served nor limited.
  const limited = (ex: Exchange) => is4xx(ex) && ex.response!.status !== 401;
  const codeOf = (ex: Exchange) => (ex.response?.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  const like = spec.rejectedLike;
  const asRefusal = (ex: Exchange) =>
    !!like && ex.response?.status === like.response?.status && codeOf(ex) === codeOf(like);
  return like
    ? {
        accepted: (ex) => !!ex.response && ex.response.status < 500 && ex.response.status !== 401 && !asRefusal(ex),
        rejected: asRefusal,
      }
    : spec.baseline
      ? {
          accepted: (ex) => ex.response?.status === baselineStatus,
          rejected: (ex) => limited(ex) && ex.response!.status !== baselineStatus,
        }
      : { accepted: isSuccess, rejected: limited };
}

/**
 * The probe's bursts and their verdict: limit+1 on the first token (its first request already sent), again wider when
 * too slow to judge, then until refusal on another token if all were served. `held`: the token whose budget was spent.
 */
async function requestBursts(
  d: Deps,
  spec: RequestProbeSpec,
  cls: Classifier,
  start: { t1: string; firstAnswer: Exchange; token: () => Promise<string> }
): Promise<{ bursts: Burst[]; verdict: LimitVerdict; held: string; inFlight: number; lateRefusal?: Exchange }> {
  const { t1, firstAnswer, token } = start;
  // As many in flight as the round trip needs for the burst to take about half a second (8 on a near target).
  const inFlight = burstConcurrency(spec.limit, firstAnswer.durationMs);
  let first = await burst(BURSTS.fill(spec.limit, inFlight), () => spec.send(t1), cls);
  first = { ...first, exchanges: [firstAnswer, ...first.exchanges], accepted: first.accepted + 1 };
  let held = t1;
  // Too slow to fill half a window: again, on a fresh token, wider (each retry spends an issuance).
  const { slowBurstRetries, slowBurstWidening } = PROBE_KNOBS;
  for (
    let retries = d.config.profile === 'certify' ? slowBurstRetries.certify : slowBurstRetries.otherwise;
    retries > 0 && first.spanMs >= windowMs(d.config) / 2;
    retries--
  ) {
    held = await token();
    first = await burst(BURSTS.overfill(spec.limit, inFlight * slowBurstWidening), () => spec.send(held), cls);
  }
  const bursts = [first];
  let verdict = judgeLimit(spec.limit, windowMs(d.config), first);
  if (verdict.kind === 'inconclusive' && first.rejections.length === 0 && first.others.length === 0) {
    const t2 = await token();
    const second = await burst(BURSTS.untilRefusal(spec.limit, inFlight), () => spec.send(t2), cls);
    bursts.push(second);
    verdict = judgeLimit(spec.limit, windowMs(d.config), first, second);
    if (neverLimited(verdict)) {
      const late = await askLateCount(d, spec, () => spec.send(t2));
      const refused = cls.rejected(late.exchange);
      verdict = judgeLateCount(verdict, second.accepted, refused, late.afterMs);
      if (refused) return { bursts, verdict, held, inFlight, lateRefusal: late.exchange };
    }
  }
  return { bursts, verdict, held, inFlight };
}

/** One more request on a never-refused burst's token, a moment after it (PROBE_KNOBS.lateCountMs, within its window). */
async function askLateCount(
  d: Deps,
  spec: RequestProbeSpec,
  send: () => Promise<Exchange>
): Promise<{ exchange: Exchange; afterMs: number }> {
  const ms = Math.min(PROBE_KNOBS.lateCountMs, windowMs(d.config) / 10);
  const ended = Date.now();
  await (d.waits ?? new Waits()).sleep(ms, `whether the ${spec.what} were counted late`, 'limits', 'limit-window');
  const exchange = await send();
  return { exchange, afterMs: Date.parse(exchange.startedAt) - ended };
}

/**
 * Once the budget was refused: the same request on another token (scope), the other class on the spent token (cross),
 * and in full and certify the reset and the window's length watched on it.
 */
export async function observeAfterRefusal(
  d: Pick<Deps, 'config' | 'http' | 'tokens' | 'waits'>,
  spec: Pick<RequestProbeSpec, 'what' | 'sentBy' | 'send'>,
  probe: LimitProbe,
  r: {
    scopeLane: string;
    turns: Pick<Turns, 'run'>;
    cls: Classifier;
    held: string;
    firstAnswer: Exchange;
    inFlight: number;
    token: () => Promise<string>;
  }
): Promise<void> {
  const { turns, cls } = r;
  let held = r.held;
  probe.scope = await spec.send(await d.tokens.get('primary', spec.sentBy, r.scopeLane));
  // On the token whose budget the first burst spent, where the budget is per token (else the other probe's would pay), in a turn of its own.
  const spentBy = probe.bursts[0]!.rejections[0];
  if (spentBy && cls.accepted(probe.scope)) {
    const spent = spec.what === 'reads' ? 'reads' : 'writes';
    const observe = (after: Exchange) =>
      turns.run(() => observeCrossCharge(d, spent, held, after, r.firstAnswer.durationMs));
    probe.cross = await observe(spentBy);
    // Its witness served: the spent budget came back in between (a window boundary; windows aligned to the clock meet
    // one at any moment). Once more, from a refusal met anew on a fresh token: the first observation's own requests
    // of the other class may still be in the held token's window (a sliding one), and must not be charged to it.
    const c = probe.cross;
    if (!('skipped' in c) && !c.witnessRefused && cls.accepted(c.witness)) {
      held = await r.token();
      const again = await turns.run(() => burst(BURSTS.respend(probe.limit, r.inFlight), () => spec.send(held), cls));
      const refusal = again.rejections[0];
      if (refusal) {
        probe.crossAfter = refusal;
        probe.cross = await observe(refusal);
      }
    }
  }
  if (waitsLong(d.config)) {
    const from = await rejectionToWaitFrom(probe, () => spec.send(held), cls, turns);
    probe.reset = await observeReset(d, spec.what, from, () => spec.send(held), cls.accepted);
    probe.windowLength = await watchWindowLength(d, probe, probe.bursts[0]!, () => spec.send(held), cls, r.inFlight);
  }
}

/**
 * The rejection a reset is watched from. A cross-charge witness the target served spent a slot of the budget after the
 * first rejection: under a sliding window the very slot its Retry-After promised, so a request sent then is refused
 * for the run's own doing. The budget is spent again on the same token, and the reset watched from that refusal.
 */
export async function rejectionToWaitFrom(
  probe: Pick<LimitProbe, 'limit' | 'firstRejection' | 'cross' | 'crossAfter'>,
  send: () => Promise<Exchange>,
  cls: Classifier,
  turns: Pick<Turns, 'run'> = new Turns()
): Promise<Exchange> {
  const first = probe.crossAfter ?? probe.firstRejection!;
  const cross = probe.cross;
  if (!cross || 'skipped' in cross || cross.witnessRefused || !cls.accepted(cross.witness)) return first;
  const again = await turns.run(() => burst(BURSTS.respend(probe.limit, PROBE_KNOBS.respendInFlight), send, cls));
  return again.rejections[0] ?? first;
}

/** The request of a reset observation the target served: the budget back. */
const servedRetry = (reset: ResetObservation | undefined, accepted: (ex: Exchange) => boolean): Exchange | undefined =>
  [reset?.afterRetryAfter, reset?.afterRetryAfterReal, reset?.afterWindow].find(
    (ex): ex is Exchange => !!ex && accepted(ex)
  );

/** Once the budget the probe spent in `first` is back: whether it stays spent as long as a minute's window holds it. */
function watchWindowLength(
  d: Pick<Deps, 'config' | 'waits'>,
  probe: LimitProbe,
  first: Burst,
  send: () => Promise<Exchange>,
  cls: Classifier,
  concurrency: number
): Promise<WindowLengthObservation | undefined> {
  const back = servedRetry(probe.reset, cls.accepted);
  if (!back || !probe.firstRejection || !first.rejections.includes(probe.firstRejection))
    return Promise.resolve(undefined);
  const waits = d.waits ?? new Waits();
  return observeWindowLength({
    what: probe.what,
    limit: probe.limit,
    timeScale: d.config.timeScale,
    first,
    servedSince: [back],
    send,
    cls,
    concurrency,
    sleep: (ms, why) => waits.sleep(ms, why, 'limits', 'limit-window'),
  });
}

/** The issuance probe and, in the full and certify profiles, its window reset observed in the background. */
export interface IssuanceStage {
  probe: LimitProbe;
  /** Settles once the issuance window's reset has been observed (at once in the quick profile). */
  reset: Promise<void>;
}

/**
 * The issuance probe runs first: it is the run's preflight (the key's first issuances in their window) and its tokens
 * become the run's pool, so nothing else spends the key's budget. Its reset is watched while the rest of the run goes on.
 */
export async function runIssuanceProbe(d: Deps): Promise<IssuanceStage> {
  const probe = await probeIssuance(d);
  const reset =
    probe.firstRejection && waitsLong(d.config)
      ? observeReset(d, 'token issuances', probe.firstRejection, issueWithPrimary(d), issuanceClassifier.accepted).then(
          async (r) => {
            probe.reset = r;
            const first = probe.bursts.find((b) => b.rejections.includes(probe.firstRejection!));
            if (first)
              probe.windowLength = await watchWindowLength(
                d,
                probe,
                first,
                issueWithPrimary(d),
                issuanceClassifier,
                ISSUANCE_IN_FLIGHT
              );
          }
        )
      : Promise.resolve();
  return { probe, reset };
}

/** A probe's request on a token of its own, recorded as carrying that token's key (a clause domain's subject). */
function sendOwn(d: Deps, token: string, request: Parameters<Deps['http']['send']>[0]): Promise<Exchange> {
  return d.http.send(request).then((ex) => {
    const key = d.tokens.keyOf(token);
    if (key) ex.subject = key;
    return ex;
  });
}

/** A create with an empty body on a probe's own token: it creates nothing, and a target that counts writes counts it. */
function emptyCreate(
  d: Deps,
  token: string,
  auth: (t: string) => Record<string, string>,
  sentBy: string
): Promise<Exchange> {
  return sendOwn(d, token, { method: 'POST', path: '/v1/vms', json: {}, headers: auth(token), sentBy });
}

/**
 * The read and write probes run last, after every other check, each on tokens of its own: a target whose budgets are
 * not per token (or never come back) spends them at a point where the rest of the run has had its budget.
 */
export async function runRequestProbes(d: Deps, issuance: IssuanceStage): Promise<LimitsReport> {
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  const turns = new Turns();
  const [read, write] = await Promise.all([
    probeRequests(
      d,
      {
        limit: LIMITS.reads.limit,
        what: 'reads',
        sentBy: 'limits.read-limit',
        send: (t) =>
          sendOwn(d, t, {
            method: 'GET',
            path: '/v1/vms',
            query: { per_page: 1 },
            headers: auth(t),
            sentBy: 'limits.read-limit',
          }),
      },
      'main',
      turns
    ),
    d.config.readOnly
      ? Promise.resolve(undefined)
      : probeRequests(
          d,
          {
            limit: LIMITS.writes.limit,
            what: 'writes',
            sentBy: 'limits.write-limit',
            // An empty create body creates nothing; the target counts it if it counts writes after authentication.
            send: (t) => emptyCreate(d, t, auth, 'limits.write-limit'),
            baseline: (ex) => is4xx(ex) && ex.response!.status !== 429,
          },
          'main',
          turns
        ),
  ]);
  const domain = await probeReadDomain(d, turns, auth);
  const realCreates = realCreateAllowance(d);
  const checkedWrite =
    write && neverLimited(write.verdict) && realCreates > LIMITS.writes.limit
      ? await probeWithCreates(d, realCreates)
      : write;
  const [writeBySubject, writeAcrossOperations] = windowHoldsSideBySide(d)
    ? await Promise.all([
        probeWriteSubjects(d, new Turns(), auth, write),
        probeWriteOperations(d, new Turns(), auth, write),
      ])
    : [await probeWriteSubjects(d, turns, auth, write), await probeWriteOperations(d, turns, auth, write)];
  const windowKind = await observeWindowKind(d, auth, read, write);
  await issuance.reset;
  return {
    token: issuance.probe,
    read,
    write: checkedWrite,
    ...domain,
    ...(writeBySubject ? { writeBySubject } : {}),
    ...(writeAcrossOperations ? { writeAcrossOperations } : {}),
    ...(windowKind ? { windowKind } : {}),
  };
}

/**
 * The declared window kind, on the reads (else the writes that create nothing) once their probe was exact, on a token
 * of its own: only in the profiles that wait out windows, as it waits one and a half.
 */
async function observeWindowKind(
  d: Deps,
  auth: (t: string) => Record<string, string>,
  read: LimitProbe | undefined,
  write: LimitProbe | undefined
): Promise<WindowKindObservation | undefined> {
  if (!d.declaredWindow || !waitsLong(d.config) || tooShort(d.config)) return undefined;
  const sentBy = 'limits.window-resets';
  const useReads = read?.verdict.kind === 'exact';
  if (!useReads && write?.verdict.kind !== 'exact')
    return {
      what: 'reads',
      limit: LIMITS.reads.limit,
      bursts: [],
      reason:
        'neither the read nor the write probe showed its limit exactly, so a budget spent in halves cannot be counted',
    };
  const t = (await d.tokens.issue('primary', sentBy)).token;
  const send = useReads
    ? () => sendOwn(d, t, { method: 'GET', path: '/v1/vms', query: { per_page: 1 }, headers: auth(t), sentBy })
    : () => emptyCreate(d, t, auth, sentBy);
  const first = await send();
  const served = (ex: Exchange) => ex.response?.status === first.response?.status;
  const cls: Classifier = {
    accepted: served,
    rejected: (ex) => is4xx(ex) && ex.response!.status !== 401 && !served(ex),
  };
  const waits = d.waits ?? new Waits();
  // The first request is the first half's first: the plan counts it as served by sending one fewer.
  let sentFirst = false;
  const observation = await probeWindowKind({
    what: useReads ? 'reads' : 'writes',
    limit: useReads ? LIMITS.reads.limit : LIMITS.writes.limit,
    windowMs: windowMs(d.config),
    concurrency: burstConcurrency(useReads ? LIMITS.reads.limit : LIMITS.writes.limit, first.durationMs),
    send: () => (sentFirst ? send() : ((sentFirst = true), Promise.resolve(first))),
    cls,
    sleep: (ms, why) => waits.sleep(ms, why, 'limits', 'limit-window'),
  });
  return observation;
}

/**
 * LIMIT-READ-300 over its domain: the read probe again on the tokens of every other key the run holds, and
 * once with its reads spread over the list and the other read operations the run saw served (a task, a record), so a
 * budget that differs by role or charges another read operation elsewhere shows. 301 reads each, on tokens of their own.
 */
async function probeReadDomain(
  d: Deps,
  turns: Turns,
  auth: (t: string) => Record<string, string>
): Promise<Pick<LimitsReport, 'readBySubject' | 'readAcrossOperations'>> {
  const listRead = (sentBy: string) => (t: string) =>
    sendOwn(d, t, { method: 'GET', path: '/v1/vms', query: { per_page: 1 }, headers: auth(t), sentBy });
  const subjects = (['second', 'readonly'] as const).filter((k) => d.tokens.has(k));
  const bySubject = (key: (typeof subjects)[number], own: Turns) =>
    probeRequests(
      d,
      {
        limit: LIMITS.reads.limit,
        what: `reads (${key} key)`,
        sentBy: 'limits.read-limit-subjects',
        key,
        judgeOnly: true,
        send: listRead('limits.read-limit-subjects'),
      },
      'main',
      own
    );
  const others = (d.readRequests?.() ?? []).slice(0, PROBE_KNOBS.maxSpreadReads);
  const reads: ReadRequest[] = [{ method: 'GET', path: '/v1/vms?per_page=1' }, ...others];
  let n = 0;
  const spread = (t: string) => {
    const read = reads[n++ % reads.length]!;
    const [path, q] = read.path.split('?');
    return sendOwn(d, t, {
      method: read.method,
      path: path!,
      ...(q ? { query: Object.fromEntries(new URLSearchParams(q)) } : {}),
      headers: auth(t),
      sentBy: 'limits.read-limit-operations',
    });
  };
  const acrossOperations = (own: Turns) =>
    probeRequests(
      d,
      {
        limit: LIMITS.reads.limit,
        what: 'reads over several operations',
        sentBy: 'limits.read-limit-operations',
        judgeOnly: true,
        send: spread,
      },
      'main',
      own
    );
  const steps: Array<(own: Turns) => Promise<LimitProbe | undefined>> = [
    ...subjects.map((key) => (own: Turns) => bySubject(key, own)),
    (own) => (others.length ? acrossOperations(own) : Promise.resolve(undefined)),
  ];
  const probes = await sideBySide(d, turns, steps);
  const readBySubject = subjects.map((key, i) => ({ key, probe: probes[i]! }));
  const probe = probes[subjects.length];
  if (!probe) return { readBySubject };
  const operations = reads.map((r) => `${r.method} ${r.path.split('?')[0]}`);
  return { readBySubject, readAcrossOperations: { ...probe, operations } };
}

/** Runs the steps one after another, in order. */
async function inSequence<T>(steps: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (const step of steps) out.push(await step());
  return out;
}

const windowHoldsSideBySide = (d: Pick<Deps, 'config'>) => windowMs(d.config) >= PROBE_KNOBS.sideBySideMinWindowMs;

/**
 * Probes of the domain that share no token: side by side, each taking turns only with itself, where a window is long
 * enough that bursts slowing each other cannot matter (a distant target at real time); else one burst at a time.
 */
function sideBySide<T>(d: Deps, turns: Turns, probes: ReadonlyArray<(own: Turns) => Promise<T>>): Promise<T[]> {
  if (!windowHoldsSideBySide(d)) return inSequence(probes.map((p) => () => p(turns)));
  return Promise.all(probes.map((p) => p(new Turns())));
}

/**
 * LIMIT-WRITE-60 over its operations: the write probe again, its writes taking turns between the empty
 * create and every other write operation of the document on ids that exist nowhere (nothing changes), on tokens of its
 * own. Only once the primary probe showed exactly 60 with writes that create nothing: such a target counts a write it
 * refuses, so a write it does not count on another operation is a budget that operation escapes.
 */
async function probeWriteOperations(
  d: Deps,
  turns: Turns,
  auth: (t: string) => Record<string, string>,
  primary: LimitProbe | undefined
): Promise<(LimitProbe & { operations: string[] }) | undefined> {
  if (!primary || primary.verdict.kind !== 'exact' || !primary.firstRejection || d.config.readOnly) return undefined;
  const others = d.writeRequests?.() ?? [];
  if (others.length === 0) return undefined;
  const requests = [{ method: 'POST', path: '/v1/vms', json: {} as unknown }, ...others];
  let n = 0;
  const spread = (t: string) => {
    const r = requests[n++ % requests.length]!;
    return sendOwn(d, t, {
      method: r.method,
      path: r.path,
      ...(r.json !== undefined ? { json: r.json } : {}),
      headers: auth(t),
      sentBy: 'limits.write-limit-operations',
    }).then((ex) => {
      // An empty body a lenient target accepted made something: the ledger deletes it (its id where the overlay says).
      const kind = kindCreatedAt(r.path);
      if (r.method === 'POST' && kind && isSuccess(ex))
        d.ledger.record(
          { kind, createdBy: 'limits.write-limit-operations', note: 'made by an empty body in the write-budget probe' },
          ex
        );
      return ex;
    });
  };
  const probe = await probeRequests(
    d,
    {
      limit: LIMITS.writes.limit,
      what: 'writes over several operations',
      sentBy: 'limits.write-limit-operations',
      judgeOnly: true,
      send: spread,
      baseline: (ex) => is4xx(ex) && ex.response!.status !== 429,
      rejectedLike: primary.firstRejection,
    },
    'main',
    turns
  );
  return { ...probe, operations: requests.map((r) => `${r.method} ${r.path}`) };
}

/**
 * LIMIT-WRITE-60 over its subjects: the write probe again, with the same writes that create nothing, on the
 * tokens of the second organization's key. Only once the primary key's probe showed exactly 60 with those writes: a
 * target that does not count them says nothing about another key's budget. A read-only key is left out (it may not write).
 */
async function probeWriteSubjects(
  d: Deps,
  turns: Turns,
  auth: (t: string) => Record<string, string>,
  primary: LimitProbe | undefined
): Promise<SubjectProbe[] | undefined> {
  if (!primary || primary.verdict.kind !== 'exact' || !d.tokens.has('second') || d.config.readOnly) return undefined;
  const probe = await probeRequests(
    d,
    {
      limit: LIMITS.writes.limit,
      what: 'writes (second key)',
      sentBy: 'limits.write-limit-subjects',
      key: 'second',
      judgeOnly: true,
      send: (t) => emptyCreate(d, t, auth, 'limits.write-limit-subjects'),
      baseline: (ex) => is4xx(ex) && ex.response!.status !== 429,
    },
    'main',
    turns
  );
  return [{ key: 'second', probe }];
}

/** Most real creates the write probe may make: --allow-writes, or in certify what it needs (two bursts of limit + 1) within the create budget. */
function realCreateAllowance(d: Pick<Deps, 'config' | 'ledger'>): number {
  const { config } = d;
  const wanted =
    config.profile === 'certify' ? Math.max(config.allowWrites, 2 * (LIMITS.writes.limit + 1)) : config.allowWrites;
  if (config.maxCreates === undefined) return wanted;
  const created = d.ledger.entries.filter((e) => e.kind === 'vm').length;
  return Math.max(0, Math.min(wanted, config.maxCreates - created));
}

/**
 * Writes that create nothing were never limited: the target may not count them. With the user's consent
 * (--allow-writes N), probe again with real creates of the smallest VM, at most N of them, all in the ledger.
 */
async function probeWithCreates(d: Deps, allowance: number): Promise<LimitProbe> {
  const { config } = d;
  const t = (await d.tokens.issue('primary', 'limits.write-limit')).token;
  let n = 0;
  const send = () => {
    const name = `cc-${config.runId}-lw${++n}`;
    const body = { name, vcpus: 1, memory_gb: 1, image: config.image, system_disk_gb: 20, subnet_id: config.subnetId };
    return sendOwn(d, t, {
      method: 'POST',
      path: '/v1/vms',
      json: body,
      headers: { authorization: `Bearer ${t}` },
      sentBy: 'limits.write-limit',
    }).then((ex) => {
      if (isSuccess(ex))
        d.ledger.record(
          {
            kind: 'vm',
            name,
            createdBy: 'limits.write-limit',
            note: `write-limit probe (${config.names.allowWrites})`,
          },
          ex
        );
      return ex;
    });
  };
  const cls: Classifier = { accepted: isSuccess, rejected: is4xx };
  const first = await burst(BURSTS.overfill(LIMITS.writes.limit, IN_FLIGHT), send, cls);
  const bursts = [first];
  let verdict = judgeLimit(LIMITS.writes.limit, windowMs(config), first);
  const left = allowance - first.exchanges.length;
  if (verdict.kind === 'inconclusive' && first.rejections.length === 0 && left > LIMITS.writes.limit) {
    // limit + 1 in a fresh window settles it: two short bursts cannot both straddle a boundary.
    const second = await burst(BURSTS.upTo(Math.min(left, LIMITS.writes.limit + 1), IN_FLIGHT), send, cls);
    bursts.push(second);
    verdict = judgeLimit(LIMITS.writes.limit, windowMs(config), first, second);
  }
  return {
    limit: LIMITS.writes.limit,
    what: 'writes (real creates)',
    verdict,
    bursts,
    firstRejection: firstRejection(bursts),
    note: `probed with real creates (at most ${allowance}: ${config.profile === 'certify' ? `certify, within ${config.names.maxCreates}` : `${config.names.allowWrites} ${config.allowWrites}`})`,
  };
}
