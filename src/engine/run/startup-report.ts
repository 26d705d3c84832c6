// The report of a run that could not start (identity/startup-failure.ts says why): verdict `error`, no checks.
import type { Exchange } from '../transport/exchange.ts';
import type { RunConfig } from '../config/config.ts';
import type { StartupFailureReport } from '../identity/startup-failure.ts';
import { connectionReport, reproduced, type Reproduction, type RunReport } from './report.ts';
import { specDigests } from './digests.ts';

/** Why the run stopped before it could judge: a first token the target would not give, or the user's own input it refused. */
interface RunStop {
  message: string;
  report: StartupFailureReport;
}

interface StartedRun {
  tool: { name: string; version: string };
  config: RunConfig;
  startedAt: string;
  log: readonly Exchange[];
  tokensIssued: Record<string, number>;
  reproduction: Reproduction;
}

/** The report of a run that could not start: verdict `error`, no checks, the failure and its evidence. */
export function startupFailureReport(failure: RunStop, run: StartedRun): RunReport {
  const { config } = run;
  return {
    tool: run.tool,
    target: { baseUrl: config.baseUrl, embedded: config.embedded },
    profile: config.profile,
    startedAt: run.startedAt,
    finishedAt: new Date().toISOString(),
    verdict: 'error',
    summary: { passed: 0, failed: 0, skipped: 0, warnings: 0 },
    checks: [],
    startupFailure: failure.report,
    seed: config.seed,
    timeScale: config.timeScale,
    overlay: config.overlayPath,
    observations: {},
    ledger: { entries: [], leftBehind: [] },
    traffic: {
      requests: run.log.length,
      writes: run.log.filter((ex) => !['GET', 'HEAD'].includes(ex.request.method)).length,
      tokensIssued: { ...run.tokensIssued },
      pacedWaitMs: 0,
    },
    safety: { readOnly: config.readOnly, insecure: config.insecure },
    ...(connectionReport(config) ? { connection: connectionReport(config) } : {}),
    ...reproduced(run.reproduction),
    digests: specDigests(),
  };
}

/** The run could not start: the failure that says why, and the report (verdict `error`) the CLI writes before it exits 2. */
export class RunNotStarted extends Error {
  constructor(
    readonly failure: RunStop,
    readonly runReport: RunReport
  ) {
    super(failure.message);
    this.name = 'RunNotStarted';
  }
}
