import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../spec/errors.ts';
import type { RunConfig } from '../engine/config.ts';
import { runSuite, newRunId, selectChecks, type RunHooks, type ToolInfo } from '../engine/runner.ts';
import type { RunReport } from '../engine/report.ts';
import { allChecks } from '../../suites/index.ts';
import { writeReports } from '../report/index.ts';
import { checkLine, summaryLines } from '../report/terminal.ts';
import { startReference, type ReferenceTarget } from '../../fixtures/reference/server.ts';
import type { RunOptions } from './options.ts';

/** The embedded reference target's declarations; runs against it hold it to them unless --overlay says otherwise. */
export const REFERENCE_OVERLAY_PATH = 'spec/overlays/reference.yaml';
const REFERENCE_OVERLAY_FILE = fileURLToPath(new URL('../../spec/overlays/reference.yaml', import.meta.url));

export interface RunResult {
  report: RunReport;
  exitCode: 0 | 1 | 2;
}

/** Resolves the target (embedded reference unless --base-url), runs the suite, writes the reports. */
export async function runCommand(opts: RunOptions, tool: ToolInfo, out: (line: string) => void, extra: { faults?: string[]; noDefaultOverlay?: boolean } = {}): Promise<RunResult> {
  for (const r of opts.reports) {
    if (!existsSync(dirname(r.path) || '.')) throw new UsageError(`--report ${r.format}:${r.path}: directory ${dirname(r.path)} does not exist`);
  }
  selectChecks(allChecks, opts.only);
  let embedded: ReferenceTarget | undefined;
  let baseUrl = opts.baseUrl;
  let keys = { primary: opts.apiKey, second: opts.apiKeyB, readonly: opts.apiKeyReadonly };
  let image = opts.image;
  let subnetId = opts.subnetId;
  let overlayPath = opts.overlay;
  if (!baseUrl) {
    if (overlayPath === undefined && !extra.noDefaultOverlay) overlayPath = REFERENCE_OVERLAY_FILE;
    embedded = await startReference({ port: 0, timeScale: opts.timeScale, faults: extra.faults });
    const s = embedded.settings;
    baseUrl = s.baseUrl;
    keys = { primary: s.apiKey, second: s.apiKeyB, readonly: s.apiKeyReadonly };
    image = s.image;
    subnetId = s.subnetId;
  } else if (!keys.primary) {
    throw new UsageError('missing credentials: --api-key (or CONFORMANCE_API_KEY) is required with --base-url');
  }
  const config: RunConfig = {
    baseUrl,
    keys,
    image,
    subnetId,
    overlayPath,
    overlayImplicit: overlayPath !== opts.overlay,
    profile: opts.profile,
    timeScale: opts.timeScale,
    seed: opts.seed,
    only: opts.only,
    runs: opts.runs,
    allowWrites: opts.allowWrites,
    taskTimeoutSeconds: opts.taskTimeoutSeconds,
    requestTimeoutSeconds: opts.requestTimeoutSeconds,
    maxBodyBytes: 8 * 1024 * 1024,
    runId: newRunId(),
    embedded: !!embedded,
  };
  const hooks: RunHooks = opts.quiet ? {} : { onCheckEnd: (c) => out(checkLine(c)) };
  try {
    if (!opts.quiet) out(`cloud-conformance ${tool.version}: ${embedded ? 'embedded reference target at ' : ''}${baseUrl}, profile ${opts.profile}, seed ${opts.seed}`);
    const report = await runSuite(config, allChecks, tool, hooks);
    if (!opts.quiet) summaryLines(report).forEach((l) => out(l));
    await writeReports(report, opts.reports);
    return { report, exitCode: report.verdict === 'conformant' ? 0 : report.verdict === 'nonconformant' ? 1 : 2 };
  } finally {
    await embedded?.close();
  }
}
