import { randomBytes } from 'node:crypto';
import { observationStore, type Observations, type Observe } from '../outcome/observations.ts';
import { loadSpec, type LoadedSpec } from '../../spec/load.ts';
import { readDeclarations } from '../../spec/declarations.ts';
import { UsageError } from '../../spec/errors.ts';
import type { RunConfig } from '../config/config.ts';
import type { Check, CheckOutcome } from './check.ts';
import { Unavailable, skip, undeclared } from './check.ts';
import { computeCoverage, isIncomplete } from './coverage.ts';
import { loadClauses, type ClauseList } from '../../spec/clauses.ts';
import { checkSettings, type CheckContext, type CheckSettings } from './context.ts';
import type { CallOptions } from '../identity/call.ts';
import { HttpClient } from '../transport/http.ts';
import { Redactor } from '../transport/redact.ts';
import { connectionSecrets, probeTls, proxyFor, speaksTls, targetTls } from '../transport/connection.ts';
import { toCurl, type CurlTls, type Exchange } from '../transport/exchange.ts';
import type { Evidence } from '../outcome/outcome.ts';
import { TokenManager, CredentialError } from '../identity/tokens.ts';
import { SPEAKS_TLS, StartupFailure } from '../identity/startup-failure.ts';
import { RunNotStarted, startupFailureReport } from './startup-report.ts';
import { SchemaAsserter } from '../schema/schema.ts';
import { Ledger } from '../target/ledger.ts';
import { RunObjects } from '../target/run-objects.ts';
import { ServedOperations } from '../target/served-operations.ts';
import { cleanup, type CleanupOutcome } from '../target/cleanup.ts';
import type { InputRefusal, KeyFacts } from '../target/input-refusal.ts';
import type { LeftBehind } from '../target/ledger.ts';
import { LEVEL_RANK, evidenceOf } from '../outcome/outcome.ts';
import type { Declarations } from '../../spec/declarations.ts';
import { callApi, type ApiDeps } from '../identity/call.ts';
import { Pacer } from '../transport/pacer.ts';
import { inParallel } from '../transport/in-parallel.ts';
import { Waits, type WaitListener, type WaitTotals } from '../transport/waits.ts';
import { RunEvents } from '../events/events.ts';
import { runIssuanceProbe, type IssuanceStage, type LimitsReport } from '../limits/limit-probes.ts';
import { runRequestStage } from '../limits/request-stage.ts';
import { prepareCertify, type CertifyPreparation } from '../target/certify.ts';
import { runScheduled } from './schedule.ts';
import {
  clauseCounts,
  connectionReport,
  reproduced,
  summarize,
  type Announcement,
  verdictOf,
  withDeleteCommands,
  type CheckReport,
  type Reproduction,
  type RunReport,
} from './report.ts';

export type { Reproduction } from './report.ts';
import { limitTraces } from '../limits/trace.ts';
import { trafficStats } from '../limits/stats.ts';
import { specDigests } from './digests.ts';
import { computeDomains, partlyVerified } from './domains.ts';
import {
  newExamined,
  noteView,
  recordingObjects,
  recordingLog,
  recordingTokens,
  type Examined,
} from './attribution.ts';

export interface RunHooks extends WaitListener {
  onCheckStart?(check: Check): void;
  onCheckEnd?(report: CheckReport): void;
  /** What the run is about to do to the target, said before it does it (the quota probe's creates): one line. */
  onAnnounce?(line: string): void;
}

export interface ToolInfo {
  name: string;
  version: string;
}

/** Calls of one check in flight at once (CheckContext.callEach): a few per token, never beyond the pacer. */
const IN_FLIGHT_PER_CHECK = 8;

export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

/** The checks of the groups selected (all when none is); a group that does not exist is a usage error. */
export function selectChecks(all: Check[], only?: readonly string[]): Check[] {
  if (!only || only.length === 0) return all;
  const groups = new Set(all.map((c) => c.group));
  const unknown = only.filter((g) => !groups.has(g));
  if (unknown.length) throw new UsageError(`unknown group ${unknown.join(', ')} (groups: ${[...groups].join(', ')})`);
  return all.filter((c) => only.includes(c.group));
}

/** What the check reports: each failed assertion at its own level; a should-level failure alone is a warning. */
export function toReport(
  check: Check,
  outcome: CheckOutcome | { status: 'error'; message: string },
  durationMs: number,
  requestsAtEnd: number
): CheckReport {
  const base = {
    id: check.id,
    group: check.group,
    clauses: check.clauses,
    level: check.level,
    checkLevel: check.level,
    title: check.title,
    durationMs,
    requestsAtEnd,
  };
  if (outcome.status === 'failed') {
    const lead = { level: outcome.level ?? check.level, message: outcome.message, evidence: outcome.evidence };
    const findings = [lead, ...(outcome.findings ?? [])];
    const binding = findings.some((f) => f.level !== 'should');
    return {
      ...base,
      status: binding ? 'failed' : 'warning',
      // The most severe assertion that failed (the lead one, as judge() orders them).
      failedAt: findings.reduce((a, f) => (LEVEL_RANK[f.level] > LEVEL_RANK[a] ? f.level : a), lead.level),
      message: outcome.message,
      evidence: outcome.evidence,
      ...(findings.length > 1 || lead.level !== check.level ? { findings } : {}),
    };
  }
  if (outcome.status === 'skipped')
    return {
      ...base,
      status: 'skipped',
      message: outcome.message,
      ...(outcome.howToVerify ? { howToVerify: outcome.howToVerify } : {}),
      ...(outcome.undeclared ? { undeclared: true as const } : {}),
    };
  if (outcome.status === 'error') return { ...base, status: 'error', message: outcome.message };
  return { ...base, status: 'passed', message: outcome.message, evidence: outcome.evidence };
}

/** What one run is made of: the document, the client and tokens, the budgets, the run's own objects, what it observed. */
interface Run {
  config: RunConfig;
  /** What each check is given of the config (context.ts). */
  settings: CheckSettings;
  hooks: RunHooks;
  reproduction: Reproduction;
  spec: LoadedSpec;
  declarations: Declarations;
  http: HttpClient;
  waits: Waits;
  tokens: TokenManager;
  schema: SchemaAsserter;
  ledger: Ledger;
  pacer: Pacer;
  redactor: Redactor;
  api: ApiDeps;
  objects: RunObjects;
  /** The operations the target serves: the document's and those the run discovers (on first use). */
  operations: ServedOperations;
  events: RunEvents;
  observations: Observations;
  observe: Observe;
  /** What the run said before doing it, in order (the report's announcements). */
  announcements: Announcement[];
  announce(by: string, message: string): void;
}

/**
 * One run, as its steps: open it, make sure the target answers (the issuance probe first when the limits group runs),
 * prepare certify's list, run the checks, delete what the run created, and write the report.
 */
export async function runSuite(
  config: RunConfig,
  allChecks: Check[],
  tool: ToolInfo,
  reproduction: Reproduction,
  hooks: RunHooks = {}
): Promise<RunReport> {
  const startedAt = new Date().toISOString();
  const checks = selectChecks(allChecks, config.only);
  // The clause list (a long YAML file) is read for the coverage at the end: parsed while the run waits, not after it.
  const clauses = loadClauses();
  clauses.catch(() => {});
  const run = await openRun(config, hooks, reproduction);
  try {
    const issuance = await preflight(run, checks, tool, startedAt);
    const certify = await prepareForCertify(run);
    const { reports, examined, limits } = await runChecks(run, checks, certify, issuance);
    const left = await cleanupAfter(run);
    if (run.objects.inputRefused) throw inputRefusedStop(run, run.objects.inputRefused, tool, startedAt, left);
    return assembleReport(run, {
      tool,
      startedAt,
      allChecks,
      reports,
      examined,
      limits,
      clauses: await clauses,
      cleanup: left,
    });
  } finally {
    await run.events.close();
    await run.http.close();
  }
}

/** What the token answers say of the keys: the primary's role and organization, the read-only key's role. */
async function keyFacts(tokens: TokenManager): Promise<KeyFacts> {
  const word = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const primary = await tokens.response('primary').catch(() => ({}) as Record<string, unknown>);
  const readonly = tokens.has('readonly')
    ? await tokens.response('readonly').catch(() => ({}) as Record<string, unknown>)
    : {};
  return {
    role: word(primary['role']),
    organization: word(primary['organization']),
    readonlyRole: word((readonly as Record<string, unknown>)['role']),
  };
}

/**
 * The run stops on the user's own input, refused by the target on the run's first create: a report like one of a run
 * that could not start (verdict error, no checks, the refusal and its exchange), with what cleanup did and left.
 */
function inputRefusedStop(
  run: Run,
  refusal: InputRefusal,
  tool: ToolInfo,
  startedAt: string,
  left: CleanupOutcome
): RunNotStarted {
  const failure = {
    message: refusal.message,
    report: {
      kind: 'input-refused' as const,
      message: refusal.message,
      evidence: evidenceOf([refusal.exchange], {
        flag: refusal.flag,
        ...(refusal.accepts ? { accepts: refusal.accepts } : {}),
      }),
    },
  };
  const report = startupFailureReport(failure, {
    tool,
    config: run.config,
    startedAt,
    log: run.http.log,
    tokensIssued: run.tokens.issued,
    reproduction: run.reproduction,
  });
  report.ledger = {
    entries: run.ledger.entries,
    leftBehind: withDeleteCommands(left.leftBehind, run.config.baseUrl, curlTls(run.config)),
    ...(left.sweeps?.length ? { sweeps: left.sweeps } : {}),
  };
  return new RunNotStarted(failure, report);
}

/** Deletes what the run created, over every lane the run holds a token in, and says what is still on the target. */
async function cleanupAfter(run: Run): Promise<CleanupOutcome> {
  return cleanup({
    declarations: run.declarations,
    ledger: run.ledger,
    log: run.http.log,
    objects: run.objects,
    config: run.config,
    waits: run.waits,
    call: (opts) => callApi(run.api, 'cleanup', opts),
    lanes: run.tokens.heldLanes('primary'),
  }).catch((err: unknown) => {
    // Cleanup that broke never costs the report: what it did not delete is left behind, said so.
    const reason = `cleanup stopped: ${(err as Error).message ?? String(err)}`;
    const left = run.ledger.entries.filter((e) => e.kind !== 'api-key-revoked' && e.cleanup !== 'deleted');
    return {
      leftBehind: left.map((e) => ({
        kind: e.kind as LeftBehind['kind'],
        ...(e.id ? { id: e.id } : {}),
        ...(e.name !== undefined ? { name: e.name } : {}),
        reason: e.note ? `${e.note}; ${reason}` : reason,
        owner: e.owner ?? 'primary',
      })),
    };
  });
}

/** The run's parts, connected: the document and its declarations, the client, tokens, pacing, ledger and the run's objects. */
async function openRun(config: RunConfig, hooks: RunHooks, reproduction: Reproduction): Promise<Run> {
  const spec = await loadSpec(config.overlayPath);
  const declarations = readDeclarations(spec);
  const redactor = new Redactor();
  for (const secret of connectionSecrets(config.connection)) redactor.add(secret.value, secret.label);
  // The embedded target listens on this machine: a proxy could not reach it.
  const http = new HttpClient(
    config.baseUrl,
    {
      timeoutSeconds: config.requestTimeoutSeconds,
      maxBodyBytes: config.maxBodyBytes,
      tls: targetTls(config.connection, config.insecure),
      proxy: config.embedded ? undefined : config.connection?.proxy,
    },
    redactor
  );
  const waits = new Waits(hooks);
  const tokens = new TokenManager(http, config.keys, config.timeScale, redactor, waits, config);
  const schema = new SchemaAsserter(spec);
  schema.compileAll();
  const ledger = new Ledger();
  const pacer = new Pacer(config.timeScale, waits);
  const api: ApiDeps = {
    http,
    tokens,
    pacer,
    timeScale: config.timeScale,
    readOnly: config.readOnly,
    maxCreates: config.maxCreates,
    names: config.names,
    createdVms: () => ledger.entries.filter((e) => e.kind === 'vm').length,
    waits,
  };
  const objects = new RunObjects((opts) => callApi(api, 'setup', opts), config, declarations, ledger, waits);
  const events = new RunEvents((opts) => callApi(api, 'events', opts), config, declarations, ledger, objects, waits);
  const store = observationStore();
  const operations = new ServedOperations(
    spec,
    (opts) => callApi(api, 'operations', opts),
    config.runId,
    declarations.cleanup.vm,
    (record) => store.observe('servedOperations', record)
  );
  objects.keyFacts = () => keyFacts(tokens);
  const announcements: Announcement[] = [];
  return {
    announcements,
    announce: (by, message) => {
      announcements.push({ by, message, afterRequests: http.log.length });
      hooks.onAnnounce?.(`${by}: ${message}`);
    },
    config,
    settings: checkSettings(config),
    hooks,
    reproduction,
    spec,
    declarations,
    http,
    waits,
    tokens,
    schema,
    ledger,
    pacer,
    redactor,
    api,
    objects,
    operations,
    events,
    ...store,
  };
}

/**
 * A target we cannot reach or whose key is refused cannot be judged (exit 2, with a report carrying the exchange that
 * shows it). With the limits group, the issuance probe is the preflight: it must be the key's first issuance in its window.
 */
async function preflight(
  run: Run,
  checks: readonly Check[],
  tool: ToolInfo,
  startedAt: string
): Promise<IssuanceStage | undefined> {
  const { config, http, tokens, ledger, waits } = run;
  try {
    if (checks.some((c) => c.group === 'limits'))
      return await runIssuanceProbe({ config, http, tokens, ledger, waits });
    await tokens.get('primary', 'setup');
    return undefined;
  } catch (err) {
    let failure = err instanceof CredentialError ? new StartupFailure(err.exchange, err.key, config) : err;
    if (failure instanceof StartupFailure && (await addTlsDiagnosis(failure.exchange, config)))
      failure = new StartupFailure(failure.exchange, failure.key, config);
    if (failure instanceof StartupFailure)
      throw new RunNotStarted(
        failure,
        startupFailureReport(failure, {
          tool,
          config,
          startedAt,
          log: http.log,
          tokensIssued: tokens.issued,
          reproduction: run.reproduction,
        })
      );
    throw failure;
  }
}

/** certify: before any check, learn how tags are set and fill a short list, so the list checks can decide. */
async function prepareForCertify(run: Run): Promise<CertifyPreparation | undefined> {
  const { config, declarations, ledger, objects, observe } = run;
  if (config.profile !== 'certify' || config.readOnly) return undefined;
  return prepareCertify({
    config,
    declarations,
    ledger,
    objects,
    call: (opts) => callApi(run.api, 'certify', opts),
    observe,
    announce: (message) => run.announce('certify', message),
  });
}

/**
 * Checks that share no budget and no state run concurrently (schedule.ts). The limits group's read and write probes
 * run after every other check (they may exhaust what they probe), then its checks; the checks that review the whole
 * log come last. Reports come back in declaration order, whatever order they ran in.
 */
async function runChecks(
  run: Run,
  checks: readonly Check[],
  certify: CertifyPreparation | undefined,
  issuance: IssuanceStage | undefined
): Promise<{ reports: CheckReport[]; examined: Map<string, Examined>; limits?: LimitsReport }> {
  const isLimits = (c: Check) => c.group === 'limits';
  // What each check judged besides what it sent (a clause's domain counts both).
  const examined = new Map<string, Examined>();
  let limits: LimitsReport | undefined;
  const runOne = (check: Check) => runCheck(run, check, examined, { certify, limits });
  const reports: CheckReport[] = await runScheduled(
    checks.filter((c) => !c.reviewsLog && !isLimits(c)),
    runOne,
    run.config.sequential
  );
  for (const check of [...checks.filter((c) => !c.reviewsLog && isLimits(c)), ...checks.filter((c) => c.reviewsLog)]) {
    // The run stops on a usage error (its own input refused): no probe is worth its traffic then.
    if (run.objects.inputRefused) break;
    if (issuance && !limits)
      limits = await runRequestStage({ ...run, call: (opts) => callApi(run.api, 'setup', opts) }, issuance);
    reports.push(await runOne(check));
  }
  reports.sort((a, b) => checks.findIndex((c) => c.id === a.id) - checks.findIndex((c) => c.id === b.id));
  return { reports, examined, ...(limits ? { limits } : {}) };
}

/** One check run in its context, its outcome (or the reason it could not run) made its report. */
async function runCheck(
  run: Run,
  check: Check,
  examined: Map<string, Examined>,
  stage: { certify?: CertifyPreparation; limits?: LimitsReport }
): Promise<CheckReport> {
  const { config, http } = run;
  // The run is stopping (the target refused its own input): what is left is not run.
  if (run.objects.inputRefused)
    return toReport(check, skip(`the run stopped: ${run.objects.inputRefused.message}`), 0, http.log.length);
  run.hooks.onCheckStart?.(check);
  const seen = newExamined();
  examined.set(check.id, seen);
  const ctx = contextFor(run, check, seen, stage);
  const started = Date.now();
  let outcome: CheckOutcome | { status: 'error'; message: string };
  try {
    outcome = await check.run(ctx);
  } catch (err) {
    if (err instanceof Unavailable)
      outcome = err.undeclared
        ? undeclared(err.message, err.howToVerify ?? `declare it in ${config.names.overlay}`)
        : skip(err.message, err.howToVerify);
    else if (err instanceof CredentialError && err.key !== 'primary')
      outcome = skip(err.message, `check ${config.names[err.key]}`);
    // The target stopped issuing tokens mid-run (a window that never resets): this check cannot run, the others stand.
    else if (err instanceof CredentialError)
      outcome = { status: 'error', message: `${err.message} in the middle of the run; this check could not run` };
    else outcome = { status: 'error', message: `internal error in the suite: ${(err as Error).message}` };
  }
  const stopped = await stoppedMeanwhile(run, check, outcome);
  if (stopped) outcome = skip(`the run stopped: ${run.objects.inputRefused!.message}`);
  const report = withCurlTls(toReport(check, outcome, Date.now() - started, http.log.length), curlTls(config));
  // A check the stop cut short says nothing of its own: the one line that names the refused input says it all.
  if (!stopped) run.hooks.onCheckEnd?.(report);
  return report;
}

/**
 * True when the run is stopping on its own input: a failure beside a create of this check's the target refused waits
 * for the run's own VM (made now where no check made it yet), whose refusal decides whether the input was the user's.
 */
async function stoppedMeanwhile(
  run: Run,
  check: Check,
  outcome: CheckOutcome | { status: 'error'; message: string }
): Promise<boolean> {
  const refusedCreate = (ex: Exchange) =>
    ex.sentBy === check.id &&
    ex.request.method === 'POST' &&
    /\/v1\/vms$/.test(new URL(ex.request.url).pathname) &&
    (ex.response?.status ?? 0) >= 400 &&
    (ex.response?.status ?? 0) < 500;
  if (outcome.status === 'failed' && !run.objects.inputRefused && run.http.log.some(refusedCreate))
    await run.objects.vm().catch((err: unknown) => {
      if (!(err instanceof Unavailable)) throw err;
    });
  return run.objects.inputRefused !== undefined;
}

/** What a check sees of the run: its calls go out under its id, and what it reads of shared state is recorded as judged. */
function contextFor(
  run: Run,
  check: Check,
  seen: Examined,
  stage: { certify?: CertifyPreparation; limits?: LimitsReport }
): CheckContext {
  const {
    config,
    spec,
    declarations,
    schema,
    tokens,
    http,
    objects,
    events,
    ledger,
    observations,
    observe,
    redactor,
    waits,
  } = run;
  return {
    checkId: check.id,
    config: run.settings,
    spec,
    declarations,
    schema,
    tokens: recordingTokens(tokens, seen),
    http,
    objects: recordingObjects(objects, seen),
    operations: run.operations,
    certify: stage.certify,
    events,
    ledger,
    log: recordingLog(http.log, seen),
    limits: stage.limits,
    call: (opts: CallOptions) => callApi(run.api, check.id, opts),
    callEach: (list: readonly CallOptions[]) =>
      inParallel(list, IN_FLIGHT_PER_CHECK, (opts) => callApi(run.api, check.id, opts)),
    observations,
    observe,
    registerSecret: (value, label) => redactor.add(value, label),
    sleepTarget: (seconds, what) =>
      waits.sleep(
        (seconds * 1000) / config.timeScale,
        what ?? `${Math.round(seconds * 10) / 10} target-seconds`,
        check.id,
        'target-time'
      ),
    announce: (message) => run.announce(check.id, message),
    view: (clause, view, undecided) => noteView(seen, clause, view, undecided),
  };
}

/** The report of a finished run: verdict, coverage and each clause's domain, traffic and waits, how to reproduce it. */
function assembleReport(
  run: Run,
  done: {
    tool: ToolInfo;
    startedAt: string;
    allChecks: Check[];
    reports: CheckReport[];
    examined: Map<string, Examined>;
    limits?: LimitsReport;
    clauses: ClauseList;
    cleanup: CleanupOutcome;
  }
): RunReport {
  const { config, http, schema, tokens, pacer, waits, ledger, spec, observations } = run;
  const { reports } = done;
  const coverage = computeCoverage(done.clauses, done.allChecks, reports, {
    overlay: !!config.overlayPath,
    only: config.only,
    names: config.names,
  });
  coverage.domains = computeDomains(done.clauses.clauses, done.allChecks, reports, http.log, done.examined, {
    merged: spec.merged,
    operationOf: (method, pathname) => run.operations.operationFor(method, pathname)?.operationId,
    served: run.operations.known(),
    keysHeld: new Set(
      Object.entries(config.keys)
        .filter(([, v]) => !!v)
        .map(([k]) => k)
    ),
    ledger: ledger.entries,
    pairs: config.profile === 'certify',
    names: config.names,
  });
  coverage.partlyVerified = partlyVerified(coverage.verified, coverage.domains);
  coverage.counts = clauseCounts(coverage);
  // The s3 group's capability matrix travels as an observation and gets its own report field.
  const s3Capabilities = observations.s3Capabilities;
  delete observations.s3Capabilities;
  return {
    tool: done.tool,
    target: { baseUrl: config.baseUrl, embedded: config.embedded },
    profile: config.profile,
    startedAt: done.startedAt,
    finishedAt: new Date().toISOString(),
    verdict: verdictOf(reports, {
      incompleteCoverage: isIncomplete(coverage),
      requireComplete: config.requireComplete,
    }),
    summary: summarize(reports),
    checks: reports,
    coverage,
    errors: reports.filter((r) => r.status === 'error').map((r) => ({ check: r.id, message: r.message })),
    requireComplete: config.requireComplete,
    seed: config.seed,
    timeScale: config.timeScale,
    overlay: config.overlayPath,
    observations,
    ledger: {
      entries: ledger.entries,
      leftBehind: withDeleteCommands(done.cleanup.leftBehind, config.baseUrl, curlTls(config)),
      ...(done.cleanup.sweeps?.length ? { sweeps: done.cleanup.sweeps } : {}),
    },
    traffic: {
      requests: http.log.length,
      writes: http.log.filter((ex) => !['GET', 'HEAD'].includes(ex.request.method)).length,
      tokensIssued: { ...tokens.issued },
      pacedWaitMs: Math.round(pacer.waitedMs),
      waits: roundedWaits(waits),
      byEndpoint: countByEndpoint(http.log, schema),
    },
    safety: { readOnly: config.readOnly, insecure: config.insecure },
    ...(connectionReport(config) ? { connection: connectionReport(config) } : {}),
    ...reproduced(run.reproduction),
    ...(s3Capabilities ? { s3Capabilities } : {}),
    ...(run.announcements.length ? { announcements: run.announcements } : {}),
    ...(done.limits ? { limitProbes: limitTraces(done.limits, config.timeScale) } : {}),
    ...limitChecksOf(reports, http.log, config.timeScale),
    digests: specDigests(),
  };
}

/** Each limit check that sent requests, with their numbers (report.limitChecks); nothing when none did. */
function limitChecksOf(
  checks: readonly CheckReport[],
  log: readonly Exchange[],
  timeScale: number
): Pick<RunReport, 'limitChecks'> {
  const bySender = new Map<string, Exchange[]>();
  for (const ex of log) (bySender.get(ex.sentBy) ?? bySender.set(ex.sentBy, []).get(ex.sentBy)!).push(ex);
  const limitChecks = checks
    .filter((c) => c.group === 'limits' && bySender.has(c.id))
    .map((c) => ({ check: c.id, stats: trafficStats(c.id, bySender.get(c.id)!, timeScale) }));
  return limitChecks.length ? { limitChecks } : {};
}

/**
 * A first request that was closed without an answer: to an https target, how one bare handshake ends (a TLS alert, or
 * a close right after it); to an http one, whether the port speaks TLS. Either is added to the exchange's transport
 * error, which the startup failure's hint reads (a client certificate required or refused; https:// wanted). Direct
 * connections only; through a proxy the tunnel would be made again.
 */
async function addTlsDiagnosis(exchange: Exchange, config: RunConfig): Promise<boolean> {
  const closed =
    !exchange.response &&
    !exchange.incompleteResponse &&
    /UND_ERR_SOCKET|ECONNRESET|socket hang up/.test(exchange.transportError ?? '');
  const direct = config.embedded || !proxyFor(config.baseUrl, config.connection?.proxy);
  if (!closed || !direct) return false;
  const wait = Math.min(config.requestTimeoutSeconds * 1000, 3000);
  if (new URL(config.baseUrl).protocol === 'http:') {
    const tls = await speaksTls(config.baseUrl, wait);
    if (tls) exchange.transportError = `${exchange.transportError}; ${SPEAKS_TLS}`;
    return tls;
  }
  const probe = await probeTls(config.baseUrl, targetTls(config.connection, config.insecure), wait);
  if (probe.alert)
    exchange.transportError = `${exchange.transportError}; a bare TLS handshake with the target ends in ${probe.alert}`;
  else if (probe.closedAfterHandshake)
    exchange.transportError = `${exchange.transportError}; the target closes a bare TLS connection right after the handshake`;
  return probe.alert !== undefined || probe.closedAfterHandshake === true;
}

/** The TLS files the run connected with, for its curl lines. */
function curlTls(config: RunConfig): CurlTls {
  const c = config.connection;
  return {
    caFile: c?.ca?.file,
    certFile: c?.clientCert?.certFile,
    keyFile: c?.clientCert?.keyFile,
    insecure: config.insecure || undefined,
  };
}

/** The check's curl lines, connecting as the run did (a private CA, a client certificate). */
function withCurlTls(report: CheckReport, tls: CurlTls): CheckReport {
  if (!tls.caFile && !tls.certFile && !tls.insecure) return report;
  const redo = (e?: Evidence) =>
    e && { ...e, exchanges: e.exchanges.map((x) => ({ ...x, curl: toCurl(x.request, tls) })) };
  return {
    ...report,
    ...(report.evidence ? { evidence: redo(report.evidence) } : {}),
    ...(report.findings ? { findings: report.findings.map((f) => ({ ...f, evidence: redo(f.evidence) })) } : {}),
  };
}

function countByEndpoint(
  log: readonly { request: { method: string; url: string } }[],
  schema: SchemaAsserter
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const ex of log) {
    const found = schema.operationFor('merged', ex.request.method, new URL(ex.request.url).pathname);
    const key = `${ex.request.method} ${found?.template ?? '(other paths)'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The run's waits per cause, in whole milliseconds. */
function roundedWaits(waits: Waits): WaitTotals {
  return Object.fromEntries(
    Object.entries(waits.totals).map(([cause, t]) => [cause, { count: t.count, ms: Math.round(t.ms) }])
  ) as WaitTotals;
}
