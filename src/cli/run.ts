import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../spec/errors.ts';
import { lintOverlay } from '../spec/load.ts';
import { OverlayInvalid } from '../spec/overlay-check.ts';
import type { RunConfig } from '../engine/config/config.ts';
import {
  runSuite,
  newRunId,
  selectChecks,
  type Reproduction,
  type RunHooks,
  type ToolInfo,
} from '../engine/run/runner.ts';
import { EXIT_CODES, exitCodeOf, type ExitCode, type RunReport } from '../engine/run/report.ts';
import { certifyBudget } from '../engine/target/certify.ts';
import { RunNotStarted } from '../engine/run/startup-report.ts';
import { allChecks } from '../../suites/index.ts';
import { writeReports } from '../report/index.ts';
import { readSigningKey, sealed } from '../report/integrity.ts';
import { loadClauses } from '../spec/clauses.ts';
import { applyExpectations, expectationLines, loadExpectations, writeExpectations } from './expect.ts';
import { renderOverlay } from '../report/overlay.ts';
import { writeFile } from 'node:fs/promises';
import { checkLine, leftBehindLines, quietSummaryLines, summaryLines } from '../report/terminal.ts';
import { ProgressView, colourWanted, type Terminal } from './progress.ts';
import { sweepS3, sweepAllS3 } from '../../suites/s3/index.ts';
import type { S3Config } from '../engine/config/config.ts';
import { INPUT_NAMES, KEY_VARIABLES, type RunOptions } from './options.ts';
import { rerunOf, tokenCommandOf } from './reproduce.ts';
import { deepFrozen } from './frozen.ts';
import { committedPlan, measuringOptions, planLines, planOf, planSelectionOf } from './plan.ts';
import { readConnection } from './connection.ts';
import { checkOutputs } from './outputs.ts';
import { DEFAULT_S3_REGION } from './defaults.ts';
import { proxyFor, routeOf } from '../engine/transport/connection.ts';
import {
  startReference,
  startReferenceProcess,
  startEmbeddedS3,
  makeTlsMaterial,
  type ReferenceTarget,
  type EmbeddedS3,
  type EmbeddedS3Settings,
  type TlsMaterial,
} from './embedded.ts';

/** The embedded reference target's declarations; runs against it hold it to them unless --overlay says otherwise. */
export const REFERENCE_OVERLAY_PATH = 'spec/overlays/reference.yaml';
const REFERENCE_OVERLAY_FILE = fileURLToPath(new URL('../../spec/overlays/reference.yaml', import.meta.url));

interface RunResult {
  report: RunReport;
  /** 0 conformant, 1 nonconformant, 2 could not run, 3 incomplete, 4 resources left behind (where it would be 0 or 3). */
  exitCode: ExitCode;
}

/** What runCommand takes beyond the options: the test harness's faults and variants, a terminal, the environment. */
interface RunExtras {
  faults?: string[];
  variants?: string[];
  noDefaultOverlay?: boolean;
  s3Faults?: string[];
  s3Variants?: string[];
  s3LargeObjectBytes?: number;
  terminal?: Terminal;
  env?: Record<string, string | undefined>;
  /** Where the run's announcements go (what it is about to create): the process's stderr unless given. */
  err?: (line: string) => void;
}

/** Inputs read and checked before anything starts: each bad one stops the run with a usage error (exit 2). */
interface CheckedInputs {
  expectations?: ReturnType<typeof loadExpectations>;
  signingKey?: ReturnType<typeof readSigningKey>;
  connection: RunConfig['connection'];
}

/** The embedded parts started early (a CA for --reference-tls, the S3 endpoint), and how to stop them if start-up stops. */
interface EarlyParts {
  referenceTls?: TlsMaterial;
  s3Starting?: Promise<EmbeddedS3>;
  s3Selected: boolean;
  /** certify serves the embedded target from a process of its own, with its S3 endpoint. */
  targetInItsOwnProcess: boolean;
  abandon(): Promise<unknown>;
}

/** The API target the run talks to: the embedded reference, or the one --base-url names, with the inputs it needs. */
interface Target {
  embedded?: ReferenceTarget;
  embeddedS3Settings?: EmbeddedS3Settings;
  baseUrl: string;
  keys: RunConfig['keys'];
  image?: string;
  subnetId?: string;
  subnetIdB?: string;
  overlayPath?: string;
  connection: RunConfig['connection'];
}

/** Resolves the target (embedded reference unless --base-url), runs the suite, writes the reports. */
export async function runCommand(
  opts: RunOptions,
  tool: ToolInfo,
  out: (line: string) => void,
  extra: RunExtras = {}
): Promise<RunResult> {
  const inputs = await checkInputs(opts, extra);
  const early = await startEarlyParts(opts, extra);
  await lintOverlayOrStop(opts, early);
  if (opts.dryRun) throw new Error('a dry run sends nothing and makes no report: dryRunCommand runs it');
  if (opts.insecure && !opts.quiet) out('WARNING: --insecure: TLS certificates are NOT verified; the report says so.');
  if (opts.s3Url && (!opts.s3AccessKey || !opts.s3SecretKey)) {
    throw new UsageError(
      'missing credentials: --s3-access-key and --s3-secret-key (or CONFORMANCE_S3_ACCESS_KEY, CONFORMANCE_S3_SECRET_KEY) are required with --s3-url'
    );
  }
  const target = await startTarget(opts, extra, early, inputs.connection);
  const { s3, embeddedS3 } = await objectStorage(opts, extra, early, target);
  const config = runConfig(opts, target, s3);
  const reproduction: Reproduction = { ...rerunOf(opts), tokenCommand: tokenCommandOf(opts, target.baseUrl) };
  return runAndReport({ opts, tool, out, extra, inputs, early, target, embeddedS3, config, reproduction });
}

/** Every file the run writes, expectations, the signing key, TLS files and proxy settings: usage errors before anything starts. */
async function checkInputs(opts: RunOptions, extra: RunExtras): Promise<CheckedInputs> {
  checkOutputs(opts);
  const expectations = opts.expect
    ? loadExpectations(
        opts.expect,
        new Set(allChecks.map((c) => c.id)),
        new Set((await loadClauses()).clauses.map((c) => c.id))
      )
    : undefined;
  const signingKey = opts.sign ? readSigningKey(opts.sign) : undefined;
  return { expectations, signingKey, connection: readConnection(opts, extra.env ?? process.env) };
}

/**
 * The embedded S3 endpoint: its proxy listens at once; s3rver (a child process, about half a second to boot) starts
 * beside the overlay check, the reference target and the first checks, and S3 requests wait for it. Under
 * --reference-tls a CA made for this run signs the embedded targets' certificate (in its own process, the target makes its own).
 */
async function startEarlyParts(opts: RunOptions, extra: RunExtras): Promise<EarlyParts> {
  const embeddedTls = opts.referenceTls && !opts.baseUrl;
  const s3Selected = selectedChecks(opts).some((c) => c.group === 's3');
  const targetInItsOwnProcess = opts.profile === 'certify';
  const referenceTls = embeddedTls && !opts.dryRun && !targetInItsOwnProcess ? await makeTlsMaterial() : undefined;
  const serverTls = referenceTls && { cert: referenceTls.serverCertPem, key: referenceTls.serverKeyPem };
  const s3Starting =
    !opts.baseUrl && !opts.s3Url && s3Selected && !opts.dryRun && !targetInItsOwnProcess
      ? startEmbeddedS3({ faults: extra.s3Faults, variants: extra.s3Variants, lazy: true, tls: serverTls })
      : undefined;
  s3Starting?.catch(() => {});
  // Start-up stopped before the run: the S3 child goes too, and the CA's files.
  const abandon = () => {
    referenceTls?.remove();
    return s3Starting?.then((started) => started.close()).catch(() => {}) ?? Promise.resolve();
  };
  return { referenceTls, s3Starting, s3Selected, targetInItsOwnProcess, abandon };
}

/** The overlay is checked against the vocabulary before anything is sent (exit 2 naming the problem). */
async function lintOverlayOrStop(opts: RunOptions, early: EarlyParts): Promise<void> {
  if (opts.overlay === undefined) return;
  const lint = await lintOverlay(opts.overlay).catch(async (err: unknown) => {
    await early.abandon();
    throw err;
  });
  if (lint.problems.length) {
    await early.abandon();
    throw new OverlayInvalid(opts.overlay, lint.problems);
  }
}

/** The embedded reference (in this process, or in its own for certify), unless --base-url names a target with its key. */
async function startTarget(
  opts: RunOptions,
  extra: RunExtras,
  early: EarlyParts,
  connection: RunConfig['connection']
): Promise<Target> {
  const given: Target = {
    baseUrl: opts.baseUrl ?? '',
    keys: {
      primary: opts.apiKey,
      second: opts.apiKeyB,
      readonly: opts.apiKeyReadonly,
      revocable: opts.apiKeyRevocable,
    },
    image: opts.image,
    subnetId: opts.subnetId,
    subnetIdB: opts.subnetIdB,
    overlayPath: opts.overlay,
    connection,
  };
  if (opts.baseUrl) {
    if (!given.keys.primary)
      throw new UsageError('missing credentials: --api-key (or CONFORMANCE_API_KEY) is required with --base-url');
    return given;
  }
  const overlayPath = opts.overlay === undefined && !extra.noDefaultOverlay ? REFERENCE_OVERLAY_FILE : opts.overlay;
  let embedded: ReferenceTarget;
  let embeddedS3Settings: EmbeddedS3Settings | undefined;
  try {
    if (early.targetInItsOwnProcess) {
      // The limit probes at a fast time scale need the target on a core of its own (fixtures/reference/process.ts).
      const started = await startReferenceProcess({
        timeScale: opts.timeScale,
        faults: extra.faults,
        variants: extra.variants,
        s3Faults: extra.s3Faults,
        s3Variants: extra.s3Variants,
        tls: opts.referenceTls,
      }).catch((err: Error) => {
        throw new UsageError(`the embedded reference target did not start: ${err.message}`);
      });
      embedded = started;
      embeddedS3Settings = started.settings;
      if (started.settings.caFile) connection = trusting(connection, readFileSync(started.settings.caFile, 'utf8'));
    } else {
      const tls = early.referenceTls && {
        cert: early.referenceTls.serverCertPem,
        key: early.referenceTls.serverKeyPem,
      };
      embedded = await startReference({
        port: 0,
        timeScale: opts.timeScale,
        faults: extra.faults,
        variants: extra.variants,
        tls,
      });
      if (early.referenceTls) connection = trusting(connection, early.referenceTls.caPem);
    }
  } catch (err) {
    await early.abandon();
    throw err;
  }
  const s = embedded.settings;
  return {
    embedded,
    embeddedS3Settings,
    baseUrl: s.baseUrl,
    keys: { primary: s.apiKey, second: s.apiKeyB, readonly: s.apiKeyReadonly, revocable: s.apiKeyRevocable },
    image: s.image,
    subnetId: s.subnetId,
    subnetIdB: s.subnetIdB,
    overlayPath,
    connection,
  };
}

/** Object storage: --s3-url, else the embedded s3rver when the API target is embedded too; else the s3 group is skipped. */
async function objectStorage(
  opts: RunOptions,
  extra: RunExtras,
  early: EarlyParts,
  target: Target
): Promise<{ s3?: S3Config; embeddedS3?: EmbeddedS3 }> {
  let embeddedS3: EmbeddedS3 | undefined;
  let s3: S3Config | undefined;
  if (opts.s3Url) {
    s3 = {
      url: opts.s3Url,
      accessKey: opts.s3AccessKey!,
      secretKey: opts.s3SecretKey!,
      region: opts.s3Region ?? DEFAULT_S3_REGION,
      forcePathStyle: !opts.s3VirtualHost,
    };
  } else if (target.embedded && target.embeddedS3Settings && early.s3Selected) {
    const e = target.embeddedS3Settings;
    s3 = {
      url: e.s3Url,
      accessKey: e.s3AccessKey,
      secretKey: e.s3SecretKey,
      region: e.s3Region,
      forcePathStyle: true,
      embedded: true,
    };
  } else if (target.embedded && early.s3Starting) {
    try {
      embeddedS3 = await early.s3Starting;
    } catch (err) {
      await target.embedded.close();
      throw err;
    }
    const e = embeddedS3.settings;
    s3 = {
      url: e.s3Url,
      accessKey: e.s3AccessKey,
      secretKey: e.s3SecretKey,
      region: e.s3Region,
      forcePathStyle: true,
      embedded: true,
    };
  }
  if (s3 && extra.s3LargeObjectBytes) s3.largeObjectBytes = extra.s3LargeObjectBytes;
  return { s3, embeddedS3 };
}

/** The checks of the groups --only selects; a group that does not exist is a usage error naming the flag. */
function selectedChecks(opts: Pick<RunOptions, 'only'>): ReturnType<typeof selectChecks> {
  try {
    return selectChecks(allChecks, opts.only);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${INPUT_NAMES.only}: ${err.message}`);
    throw err;
  }
}

/**
 * The engine's configuration of this run, frozen: the target, the options, a fresh run id, and how the user gives each
 * input (the table's flags), which the engine's hints name them by.
 */
function runConfig(opts: RunOptions, target: Target, s3: S3Config | undefined): RunConfig {
  return deepFrozen({
    baseUrl: target.baseUrl,
    keys: target.keys,
    image: target.image,
    subnetId: target.subnetId,
    subnetIdB: target.subnetIdB,
    overlayPath: target.overlayPath,
    overlayImplicit: target.overlayPath !== opts.overlay,
    profile: opts.profile,
    timeScale: opts.timeScale,
    seed: opts.seed,
    only: opts.only,
    randomCases: opts.runs,
    allowWrites: opts.allowWrites,
    requireComplete: opts.requireComplete,
    // certify creates within a budget: --max-creates, else what it needs (printed by --dry-run).
    maxCreates: opts.maxCreates ?? (opts.profile === 'certify' ? certifyBudget().total : undefined),
    webhookListen: opts.webhookListen,
    sequential: opts.sequential,
    readOnly: opts.readOnly,
    expiredToken: opts.expiredToken,
    insecure: opts.insecure,
    connection: target.connection,
    referenceTls: (opts.referenceTls && !opts.baseUrl) || undefined,
    webhookUrl: opts.webhookUrl,
    taskTimeoutSeconds: opts.taskTimeoutSeconds,
    requestTimeoutSeconds: opts.requestTimeoutSeconds,
    maxBodyBytes: opts.maxBodyBytes,
    runId: newRunId(),
    embedded: !!target.embedded,
    s3,
    names: INPUT_NAMES,
    keyVariables: KEY_VARIABLES,
  });
}

/**
 * The run itself and what it leaves: the live view, the suite, the S3 sweep, the summary and exit code, the reports;
 * whatever happens, everything started is stopped (Ctrl-C too: the run's buckets removed, exit 130).
 */
async function runAndReport(r: {
  opts: RunOptions;
  tool: ToolInfo;
  out: (line: string) => void;
  extra: RunExtras;
  inputs: CheckedInputs;
  early: EarlyParts;
  target: Target;
  embeddedS3?: EmbeddedS3;
  config: RunConfig;
  reproduction: Reproduction;
}): Promise<RunResult> {
  const { opts, tool, out, extra, inputs, early, target, embeddedS3, config } = r;
  const { embedded } = target;
  const view = progressViewFor(opts, extra);
  const say = view ? (line: string) => view.line(line) : out;
  const hooks = hooksFor(opts, extra, view, out);
  const onSigint = interruptHandler(embeddedS3, embedded, early);
  if (config.s3 && early.s3Selected) process.once('SIGINT', onSigint);
  let swept = false;
  try {
    if (!opts.quiet)
      say(
        `cloud-conformance ${tool.version}: ${embedded ? 'embedded reference target at ' : ''}${config.baseUrl}, profile ${opts.profile}, seed ${opts.seed}`
      );
    if (!opts.quiet && config.connection?.proxy) say(proxyLine(config));
    const judged = await runSuiteLeavingReports(
      config,
      { tool, reproduction: r.reproduction, hooks },
      inputs,
      opts,
      out
    );
    await embeddedS3Started(embeddedS3);
    const s3Cleanup = await sweepS3(config);
    swept = true;
    if (s3Cleanup && !opts.quiet && s3Cleanup.failed.length)
      say(`object storage: could not remove ${s3Cleanup.failed.map((f) => `${f.bucket} (${f.error})`).join(', ')}`);
    view?.close();
    const colour = view ? colourWanted(extra.env ?? {}, extra.terminal!.isTTY) : false;
    // Each step gives a new report (the S3 sweep, the expectations, the seal): none edits the one before it.
    return await concludeRun(s3Cleanup ? { ...judged, s3Cleanup } : judged, { opts, inputs, out, colour });
  } finally {
    view?.close();
    if (!swept) await sweepS3(config).catch(() => undefined);
    process.off('SIGINT', onSigint);
    await embeddedS3?.close();
    await embedded?.close();
    early.referenceTls?.remove();
  }
}

/**
 * What the run shows as it goes: the live view, or a line per check, or nothing (--quiet); and, whatever the mode, each
 * announcement on stderr (what the run is about to create on the target is never left unsaid).
 */
function hooksFor(
  opts: RunOptions,
  extra: RunExtras,
  view: ProgressView | undefined,
  out: (line: string) => void
): RunHooks {
  const shown: RunHooks = opts.quiet ? {} : (view ?? { onCheckEnd: (c) => out(checkLine(c)) });
  const err = extra.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    onCheckStart: (check) => shown.onCheckStart?.(check),
    onCheckEnd: (report) => shown.onCheckEnd?.(report),
    onWaitStart: (w) => shown.onWaitStart?.(w),
    onWaitEnd: (w) => shown.onWaitEnd?.(w),
    onAnnounce: (line) => (view ? view.aside(() => err(line)) : err(line)),
  };
}

/** A terminal gets the live view (a status line, countdowns, colour); a plain writer (or --quiet) gets none. */
function progressViewFor(opts: RunOptions, extra: RunExtras): ProgressView | undefined {
  return !opts.quiet && extra.terminal
    ? new ProgressView(extra.terminal, {
        colour: colourWanted(extra.env ?? {}, extra.terminal.isTTY),
        total: selectedChecks(opts).length,
      })
    : undefined;
}

/** Ctrl-C: the run's buckets removed (15 s at most), everything started stopped, exit 130. */
function interruptHandler(
  embeddedS3: EmbeddedS3 | undefined,
  embedded: ReferenceTarget | undefined,
  early: EarlyParts
): () => void {
  return () => {
    void (async () => {
      await Promise.race([sweepAllS3(), new Promise((res) => setTimeout(res, 15_000).unref())]);
      await embeddedS3?.close().catch(() => {});
      await embedded?.close().catch(() => {});
      early.referenceTls?.remove();
      process.exit(130);
    })();
  };
}

/** Runs the suite; a run that could not start still leaves the reports asked for (verdict error), then throws on. */
async function runSuiteLeavingReports(
  config: RunConfig,
  run: { tool: ToolInfo; reproduction: Reproduction; hooks: RunHooks },
  inputs: CheckedInputs,
  opts: RunOptions,
  out: (line: string) => void
): Promise<RunReport> {
  return runSuite(config, allChecks, run.tool, run.reproduction, run.hooks).catch(async (err: unknown) => {
    if (err instanceof RunNotStarted) {
      await writeReports(sealed(err.runReport, inputs.signingKey), opts.reports);
      // A run that stopped on its own input may have made something before it stopped: never left unsaid.
      leftBehindLines(err.runReport).forEach((l) => out(l));
    }
    throw err;
  });
}

/** Our own S3 server failed to start: its checks met 503s that say nothing of a target, so the run cannot stand. */
async function embeddedS3Started(embeddedS3: EmbeddedS3 | undefined): Promise<void> {
  await embeddedS3?.ready.catch((err: Error) => {
    throw new Error(
      `the embedded S3 endpoint did not start (${err.message}); run without the s3 group (--only) or point --s3-url at an endpoint`
    );
  });
}

/** The exit code (after --expect), the summary, the sealed reports, the overlay and expectations asked for. */
async function concludeRun(
  judged: RunReport,
  c: { opts: RunOptions; inputs: CheckedInputs; out: (line: string) => void; colour: boolean }
): Promise<RunResult> {
  const { opts, inputs, out } = c;
  const expected = inputs.expectations
    ? applyExpectations(judged, opts.expect!, inputs.expectations, opts.strictExpect)
    : { report: judged, exitCode: EXIT_CODES[judged.verdict] };
  (opts.quiet ? quietSummaryLines(expected.report) : summaryLines(expected.report, c.colour)).forEach((l) => out(l));
  expectationLines(expected.report).forEach((l) => out(l));
  // Last: the digests cover everything the report says, expectations included.
  const report = sealed(expected.report, inputs.signingKey);
  const exitCode = exitCodeOf(report, expected.exitCode);
  await writeReports(report, opts.reports);
  for (const rep of opts.reports) out(`report: ${rep.format} written to ${rep.path}`);
  if (opts.emitOverlay)
    await writeFile(opts.emitOverlay, renderOverlay(report)).catch(cannotWrite(`--emit-overlay ${opts.emitOverlay}`));
  if (opts.writeExpect) {
    try {
      const n = writeExpectations(report, opts.writeExpect);
      out(
        `expectations: ${n} known ${n === 1 ? 'failure or warning' : 'failures and warnings'} written to ${opts.writeExpect}`
      );
    } catch (err) {
      cannotWrite(`--write-expect ${opts.writeExpect}`)(err);
    }
  }
  return { report, exitCode };
}

/** A file checked writable at the start that could not be written at the end (a full disk, a folder removed): one line. */
const cannotWrite =
  (flag: string) =>
  (err: unknown): never => {
    throw new UsageError(
      `${flag}: could not write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    );
  };

/** The run's connection settings with one more trusted CA (the embedded target's, under --reference-tls). */
function trusting(connection: RunConfig['connection'], caPem: string): NonNullable<RunConfig['connection']> {
  return { ...connection, ca: { ...connection?.ca, pem: [...(connection?.ca?.pem ?? []), caPem] } };
}

/** Which way each client goes, proxy credentials hidden; the embedded targets are on this machine and reached directly. */
function proxyLine(config: RunConfig): string {
  const proxy = config.connection?.proxy;
  const api = config.embedded ? 'directly (embedded target)' : routeOf(config.baseUrl, proxy);
  const s3 = !config.s3
    ? ''
    : `; object storage ${config.s3.embedded ? 'directly (embedded endpoint)' : routeOf(config.s3.url, proxy)}`;
  // A proxy on another machine cannot reach this one's loopback: a common slip, said where it can be seen.
  const loopback = [
    config.embedded ? undefined : config.baseUrl,
    config.s3?.embedded ? undefined : config.s3?.url,
  ].filter((url): url is string => !!url && !!proxyFor(url, proxy) && LOOPBACK.test(new URL(url).hostname));
  const note = loopback.length
    ? `; ${loopback
        .map((u) => new URL(u).hostname)
        .filter((h, i, all) => all.indexOf(h) === i)
        .join(', ')} is this machine: add it to NO_PROXY unless the proxy is on this machine too`
    : '';
  return `proxy: API ${api}${s3}${proxy?.noProxy ? ` (NO_PROXY ${proxy.noProxy})` : ''}${note}`;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The create budget, as --dry-run prints it before a run: certify's parts, or the cap --max-creates sets. */
export function createBudgetLines(opts: Pick<RunOptions, 'profile' | 'maxCreates'>): string[] {
  if (opts.profile !== 'certify')
    return opts.maxCreates === undefined ? [] : [`  create budget: at most ${opts.maxCreates} VMs (--max-creates)`];
  const budget = certifyBudget();
  const cap = opts.maxCreates ?? budget.total;
  return [
    `  create budget: at most ${cap} VMs${opts.maxCreates === undefined ? ` (certify's default: what it may need; cap it with --max-creates)` : ' (--max-creates)'}:`,
    ...budget.parts.map((p) => `    up to ${String(p.creates).padStart(3)}  ${p.what}`),
    `    every one small (1 vCPU, 1 GB), named cc-<run id>-…, in the report's ledger, and deleted at the end where a delete is declared or DELETE /v1/vms/{id} works`,
    ...(cap < budget.total
      ? [
          `    with ${cap}, the parts that do not fit are reported as not verified, naming the --max-creates that would verify them`,
        ]
      : []),
  ];
}

/**
 * --dry-run: the plan. The committed one where it applies (suites/plan.json, measured by `npm run plan`), else measured
 * by running the same selection against the embedded reference target in-process, at the run's own time scale (the
 * limit probes' bursts depend on it). Nothing is sent to the target named by --base-url.
 */
export async function dryRunCommand(opts: RunOptions, tool: ToolInfo, out: (line: string) => void): Promise<0> {
  await checkInputs(opts, {});
  await lintOverlayOrStop(opts, await startEarlyParts(opts, {}));
  const selection = planSelectionOf(opts);
  const committed = 'measure' in selection ? selection : committedPlan(selection);
  const target = opts.baseUrl ?? 'the embedded reference target';
  out(`dry run: nothing was sent to ${target}.`);
  if (!('measure' in committed)) {
    const source = `as measured against the embedded reference target on ${committed.measuredAt.slice(0, 10)} with seed ${committed.seed}, committed in suites/plan.json`;
    for (const line of planLines(committed, opts, source, createBudgetLines(opts))) out(line);
    return 0;
  }
  const report = await measureReport(opts, tool);
  const measured = planOf(
    'measure' in selection
      ? { profile: opts.profile, overlay: opts.baseUrl === undefined ? 'reference' : 'none' }
      : selection,
    report,
    new Date().toISOString()
  );
  for (const line of planLines(
    measured,
    opts,
    `measured now against the embedded reference target, since no committed plan applies (${committed.measure})`,
    createBudgetLines(opts)
  ))
    out(line);
  return 0;
}

/** The report of a run of the dry run's selection against the embedded reference: what the plan is measured from. */
export async function measureReport(opts: RunOptions, tool: ToolInfo): Promise<RunReport> {
  const { report } = await runCommand(
    measuringOptions(opts),
    tool,
    () => {},
    // A target named without an overlay is run without one; the embedded reference is run with its own, as the run would.
    { noDefaultOverlay: opts.overlay === undefined && opts.baseUrl !== undefined }
  );
  return report;
}
