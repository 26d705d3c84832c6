import { setTimeout as sleep } from 'node:timers/promises';
import { waitsLong, type RunConfig } from './config.ts';
import type { HttpClient } from './http.ts';
import { StartupFailure } from './startup-failure.ts';
import type { TokenManager } from './tokens.ts';
import type { Exchange } from './exchange.ts';
import { isSuccess, statusText } from './exchange.ts';
import type { Ledger } from './ledger.ts';
import { burst, judgeLimit, type Burst, type Classifier, type LimitVerdict } from './probes.ts';
import { parseRetryAfter } from './retry-after.ts';
import { observeCrossCharge, type CrossObservation, type CrossSkipped } from './cross-budget.ts';

export const LIMITS = { read: 300, write: 60, token: 10 } as const;
const WINDOW_SECONDS = 60;
const CONCURRENCY = 8;

export interface ResetObservation {
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
}

export interface LimitProbe {
  limit: number;
  what: string;
  verdict: LimitVerdict;
  bursts: Burst[];
  firstRejection?: Exchange;
  /** A request on another token (reads, writes) or key (issuance) right after this budget was spent. */
  scope?: Exchange;
  /** Issuance: an exchange of the read-only key (another key, perhaps of the same organization) right after. */
  scopeReadonly?: Exchange;
  /** Reads, writes: the other class sent on the token whose budget was spent (cross-budget.ts), or why not. */
  cross?: CrossObservation | CrossSkipped;
  reset?: ResetObservation;
  note?: string;
}

export interface LimitsReport {
  token: LimitProbe;
  read?: LimitProbe;
  write?: LimitProbe;
}

interface Deps {
  config: RunConfig;
  http: HttpClient;
  tokens: TokenManager;
  ledger: Ledger;
}

const windowMs = (config: RunConfig) => (WINDOW_SECONDS * 1000) / config.timeScale;
const is4xx = (ex: Exchange) => !!ex.response && ex.response.status >= 400 && ex.response.status < 500;

const firstRejection = (bursts: Burst[]) => bursts.flatMap((b) => b.rejections)[0];

/** Waits out Retry-After and then, if still refused, the rest of a window; records both answers. */
async function observeReset(config: RunConfig, rejection: Exchange, retry: () => Promise<Exchange>, accepted: (ex: Exchange) => boolean): Promise<ResetObservation> {
  const rejectedAt = Date.parse(rejection.startedAt) + rejection.durationMs;
  const retryAfter = parseRetryAfter(rejection);
  const obs: ResetObservation = { retryAfter };
  if (retryAfter !== undefined && retryAfter <= WINDOW_SECONDS) {
    await sleep(Math.max(0, rejectedAt + ((retryAfter + 1) * 1000) / config.timeScale - Date.now()));
    obs.afterRetryAfter = await retry();
    if (accepted(obs.afterRetryAfter)) return obs;
    if (config.timeScale !== 1) {
      // Read as real seconds: the wait is longer than target-seconds under a scale above 1 (and bounded by a minute).
      await sleep(Math.max(0, rejectedAt + Math.min(retryAfter + 1, WINDOW_SECONDS + 1) * 1000 - Date.now()));
      obs.afterRetryAfterReal = await retry();
      if (accepted(obs.afterRetryAfterReal)) return obs;
    }
  }
  await sleep(Math.max(0, rejectedAt + ((WINDOW_SECONDS + 1) * 1000) / config.timeScale - Date.now()));
  obs.afterWindow = await retry();
  return obs;
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
  const cls = issuanceClassifier;
  const send = issueWithPrimary(d);
  const adopt = (b: Burst, lanes: string[]) => {
    for (const ex of b.exchanges.filter(cls.accepted)) d.tokens.adopt('primary', (ex.response!.json as { token: string }).token, ex.response!.json as Record<string, unknown>, ex, lanes.shift());
  };
  const first = await burst({ max: LIMITS.token + 1, concurrency: 4, stopAtFirstRejection: false }, send, cls);
  // No token at all: the run cannot start; the first request sent says what the target did.
  if (first.accepted === 0) throw new StartupFailure(first.exchanges.reduce((a, b) => (b.seq < a.seq ? b : a)), '--api-key', d.config);
  adopt(first, ['main', 'generated']);
  const bursts = [first];
  let verdict = judgeLimit(LIMITS.token, windowMs(d.config), first);
  let note: string | undefined;
  if (verdict.kind === 'inconclusive' && first.rejections.length === 0 && waitsLong(d.config)) {
    // One key, one budget: only a fresh window can tell a straddled boundary from a looser limit.
    await sleep(windowMs(d.config) + 50);
    const second = await burst({ max: 2 * LIMITS.token + 2, concurrency: 4, stopAtFirstRejection: true }, send, cls);
    adopt(second, []);
    bursts.push(second);
    verdict =
      second.spanMs >= windowMs(d.config) / 2
        ? { kind: 'inconclusive', reason: `the burst in a fresh window took ${second.spanMs} ms, more than half a window (${Math.round(windowMs(d.config))} ms)` }
        : second.accepted === LIMITS.token && second.rejections.length
          ? { kind: 'exact', note: 'the first burst straddled a window boundary' }
          : second.accepted < LIMITS.token
            ? { kind: 'inconclusive', reason: `a fresh window served only ${second.accepted}` }
            : { kind: 'looser', accepted: second.rejections.length ? second.accepted : 'unlimited' };
    note = 'judged on a burst sent a whole window after the first';
  }
  const probe: LimitProbe = { limit: LIMITS.token, what: 'token issuances', verdict, bursts, firstRejection: firstRejection(bursts), note };
  if (probe.firstRejection && d.tokens.has('second')) probe.scope = await d.tokens.exchange(d.config.keys.second!, 'limits.key-scope');
  if (probe.firstRejection && d.tokens.has('readonly')) probe.scopeReadonly = await d.tokens.exchange(d.config.keys.readonly!, 'limits.key-scope');
  return probe;
}

interface RequestProbeSpec {
  limit: number;
  what: string;
  sentBy: string;
  send(token: string): Promise<Exchange>;
  /** The answer every counted-and-allowed request gets (learned from the first one). */
  baseline?: (ex: Exchange) => boolean;
}

/** Reads or writes on dedicated tokens: exactly limit+1 on one, then (if all were served) until refusal on another. */
async function probeRequests(d: Deps, spec: RequestProbeSpec, scopeLane: string): Promise<LimitProbe> {
  const token = async () => (await d.tokens.issue('primary', spec.sentBy)).token;
  const t1 = await token();
  const firstAnswer = await spec.send(t1);
  const served = spec.baseline ?? ((ex: Exchange) => isSuccess(ex));
  const baselineStatus = firstAnswer.response?.status;
  const cls: Classifier = spec.baseline
    ? { accepted: (ex) => ex.response?.status === baselineStatus, rejected: (ex) => is4xx(ex) && ex.response!.status !== baselineStatus }
    : { accepted: isSuccess, rejected: is4xx };
  if (!served(firstAnswer)) {
    return { limit: spec.limit, what: spec.what, verdict: { kind: 'inconclusive', reason: `the first ${spec.what.replace(/s$/, '')} answered ${statusText(firstAnswer)}` }, bursts: [] };
  }
  let first = await burst({ max: spec.limit, concurrency: CONCURRENCY, stopAtFirstRejection: false }, () => spec.send(t1), cls);
  first = { ...first, exchanges: [firstAnswer, ...first.exchanges], accepted: first.accepted + 1 };
  let held = t1;
  if (first.spanMs >= windowMs(d.config) / 2) {
    // Too slow to fill one window: once more, on a fresh token, four times as wide.
    held = await token();
    first = await burst({ max: spec.limit + 1, concurrency: CONCURRENCY * 4, stopAtFirstRejection: false }, () => spec.send(held), cls);
  }
  const bursts = [first];
  let verdict = judgeLimit(spec.limit, windowMs(d.config), first);
  if (verdict.kind === 'inconclusive' && first.rejections.length === 0 && first.others.length === 0) {
    const t2 = await token();
    const second = await burst({ max: 2 * spec.limit + 2, concurrency: CONCURRENCY, stopAtFirstRejection: true }, () => spec.send(t2), cls);
    bursts.push(second);
    verdict = judgeLimit(spec.limit, windowMs(d.config), first, second);
  }
  const probe: LimitProbe = { limit: spec.limit, what: spec.what, verdict, bursts, firstRejection: firstRejection(bursts) };
  if (probe.firstRejection) {
    probe.scope = await spec.send(await d.tokens.get('primary', spec.sentBy, scopeLane));
    // On the token whose budget the first burst spent, and only where the budget is per token (else the other probe's budget would pay).
    if (first.rejections.length && cls.accepted(probe.scope)) probe.cross = await observeCrossCharge(d, spec.what === 'reads' ? 'reads' : 'writes', held, first.rejections[0]!);
    if (waitsLong(d.config)) probe.reset = await observeReset(d.config, probe.firstRejection, () => spec.send(held), cls.accepted);
  }
  return probe;
}

/** Runs the three probes: issuance first (it is the preflight and fills the token pool), then reads and writes together. */
export async function runLimitProbes(d: Deps): Promise<LimitsReport> {
  const token = await probeIssuance(d);
  // The full profile's wait for the issuance window runs alongside the read and write probes and their own waits.
  const tokenReset =
    token.firstRejection && waitsLong(d.config)
      ? observeReset(d.config, token.firstRejection, issueWithPrimary(d), issuanceClassifier.accepted).then((r) => {
          token.reset = r;
        })
      : Promise.resolve();
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  const [read, write] = await Promise.all([
    probeRequests(d, {
      limit: LIMITS.read,
      what: 'reads',
      sentBy: 'limits.read-limit',
      send: (t) => d.http.send({ method: 'GET', path: '/v1/vms', query: { per_page: 1 }, headers: auth(t), sentBy: 'limits.read-limit' }),
    }, 'main'),
    d.config.readOnly ? Promise.resolve(undefined) : probeRequests(d, {
      limit: LIMITS.write,
      what: 'writes',
      sentBy: 'limits.write-limit',
      // An empty create body creates nothing; the target counts it if it counts writes after authentication.
      send: (t) => d.http.send({ method: 'POST', path: '/v1/vms', json: {}, headers: auth(t), sentBy: 'limits.write-limit' }),
      baseline: (ex) => is4xx(ex) && ex.response!.status !== 429,
    }, 'main'),
  ]);
  const checkedWrite = write && write.verdict.kind === 'looser' && write.verdict.accepted === 'unlimited' && d.config.allowWrites > LIMITS.write ? await probeWithCreates(d) : write;
  await tokenReset;
  return { token, read, write: checkedWrite };
}

/**
 * Writes that create nothing were never limited: the target may not count them. With the user's consent
 * (--allow-writes N), probe again with real creates of the smallest VM, at most N of them, all in the ledger.
 */
async function probeWithCreates(d: Deps): Promise<LimitProbe> {
  const { config } = d;
  const t = (await d.tokens.issue('primary', 'limits.write-limit')).token;
  let n = 0;
  const send = () => {
    const name = `cc-${config.runId}-lw${++n}`;
    const body = { name, vcpus: 1, memory_gb: 1, image: config.image, system_disk_gb: 20, subnet_id: config.subnetId };
    return d.http.send({ method: 'POST', path: '/v1/vms', json: body, headers: { authorization: `Bearer ${t}` }, sentBy: 'limits.write-limit' }).then((ex) => {
      if (isSuccess(ex)) d.ledger.record({ kind: 'vm', name, createdBy: 'limits.write-limit', note: 'write-limit probe (--allow-writes)' });
      return ex;
    });
  };
  const cls: Classifier = { accepted: isSuccess, rejected: is4xx };
  const first = await burst({ max: LIMITS.write + 1, concurrency: CONCURRENCY, stopAtFirstRejection: false }, send, cls);
  const bursts = [first];
  let verdict = judgeLimit(LIMITS.write, windowMs(config), first);
  const left = config.allowWrites - first.exchanges.length;
  if (verdict.kind === 'inconclusive' && first.rejections.length === 0 && left > LIMITS.write) {
    const second = await burst({ max: left, concurrency: CONCURRENCY, stopAtFirstRejection: true }, send, cls);
    bursts.push(second);
    verdict = judgeLimit(LIMITS.write, windowMs(config), first, second);
  }
  return { limit: LIMITS.write, what: 'writes (real creates)', verdict, bursts, firstRejection: firstRejection(bursts), note: `probed with real creates under --allow-writes ${config.allowWrites}` };
}
