// --dry-run's plan: what a run would send, before it sends anything. For the selections people dry-run (a profile, all
// groups or one, the embedded reference's overlay or none), the plan is the one committed in suites/plan.json, measured
// by `npm run plan` and held to the checks by test/cli/plan.test.ts; any other selection is measured on the spot
// against the embedded reference, as a run would make it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Profile } from '../engine/config/config.ts';
import type { RunReport } from '../engine/run/report.ts';
import type { WaitTotals } from '../engine/transport/waits.ts';
import { selectChecks } from '../engine/run/runner.ts';
import { allChecks } from '../../suites/index.ts';
import type { RunOptions } from './options.ts';
import { DEFAULT_RUNS, defaultTimeScale } from './defaults.ts';

export const PLAN_FILE = fileURLToPath(new URL('../../suites/plan.json', import.meta.url));

/** Which plan applies: the profile, the overlay the measuring run used (the reference's own, or none) and the group. */
export interface PlanSelection {
  profile: Profile;
  /** 'reference': the embedded reference's own overlay (no --base-url); 'none': a --base-url without --overlay. */
  overlay: 'reference' | 'none';
  /** One group (--only with one group); absent: every group. */
  only?: string;
}

/** What a run of the selection sent to the embedded reference, and what it created and waited for. */
export interface TrafficPlan extends PlanSelection {
  /** The checks the selection runs: a plan measured before a check was added or removed no longer applies. */
  checks: string[];
  groups: string[];
  requests: number;
  writes: number;
  byEndpoint: Record<string, number>;
  created: Record<string, number>;
  waits: Partial<WaitTotals>;
  seed: number;
  measuredAt: string;
}

export interface PlanFile {
  about: string;
  plans: TrafficPlan[];
}

/** The selection a dry run asks for, or why no committed plan can answer it (then it is measured). */
export function planSelectionOf(opts: RunOptions): PlanSelection | { measure: string } {
  const reasons = [
    opts.overlay !== undefined && 'an overlay of your own decides which declared checks run',
    opts.readOnly && '--read-only',
    (opts.only?.length ?? 0) > 1 && 'several groups share their setup',
    // Real time, or the clock the run assumes (the embedded reference's 10): the same requests, within a few per cent.
    opts.timeScale !== 1 && opts.timeScale !== defaultTimeScale(opts.baseUrl) && '--time-scale',
    opts.runs !== DEFAULT_RUNS && '--runs',
    opts.maxCreates !== undefined && '--max-creates',
  ].filter((r): r is string => typeof r === 'string');
  if (reasons.length) return { measure: reasons.join(', ') };
  return {
    profile: opts.profile,
    overlay: opts.baseUrl === undefined ? 'reference' : 'none',
    ...(opts.only?.length === 1 ? { only: opts.only[0]! } : {}),
  };
}

/** The checks a selection runs, by id. */
export function checksOf(selection: PlanSelection): string[] {
  return selectChecks(allChecks, selection.only ? [selection.only] : undefined)
    .map((c) => c.id)
    .sort();
}

export function readPlanFile(file = PLAN_FILE): PlanFile {
  return JSON.parse(readFileSync(file, 'utf8')) as PlanFile;
}

/** The committed plan of a selection, or why there is none that applies. */
export function committedPlan(
  selection: PlanSelection,
  file: PlanFile = readPlanFile()
): TrafficPlan | { measure: string } {
  const plan = file.plans.find(
    (p) => p.profile === selection.profile && p.overlay === selection.overlay && p.only === selection.only
  );
  if (!plan) return { measure: 'no plan is committed for this selection' };
  const now = checksOf(selection);
  const added = now.filter((id) => !plan.checks.includes(id));
  const removed = plan.checks.filter((id) => !now.includes(id));
  if (added.length || removed.length)
    return {
      measure: `the committed plan predates ${[...added.map((id) => `${id} (added)`), ...removed.map((id) => `${id} (removed)`)].join(', ')}`,
    };
  return plan;
}

/** A measured run as a plan of its selection. */
export function planOf(selection: PlanSelection, report: RunReport, measuredAt: string): TrafficPlan {
  const t = report.traffic;
  const created = report.ledger.entries.reduce<Record<string, number>>(
    (acc, e) => ({ ...acc, [e.kind]: (acc[e.kind] ?? 0) + 1 }),
    {}
  );
  const waits = Object.fromEntries(Object.entries(t.waits ?? {}).filter(([, w]) => w.count > 0)) as Partial<WaitTotals>;
  return {
    ...selection,
    checks: checksOf(selection),
    groups: [...new Set(report.checks.map((c) => c.group))],
    requests: t.requests,
    writes: t.writes,
    byEndpoint: Object.fromEntries(
      Object.entries(t.byEndpoint ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    ),
    created,
    waits,
    seed: report.seed,
    measuredAt,
  };
}

/** The options of the run that measures a selection: the embedded reference, nothing of the real target's. */
export function measuringOptions(opts: RunOptions): RunOptions {
  return {
    ...opts,
    dryRun: false,
    quiet: true,
    reports: [],
    emitOverlay: undefined,
    baseUrl: undefined,
    apiKey: undefined,
    apiKeyB: undefined,
    apiKeyReadonly: undefined,
    apiKeyRevocable: undefined,
    s3Url: undefined,
  };
}

/** The plan's lines, as --dry-run prints them. */
export function planLines(
  plan: TrafficPlan,
  opts: Pick<RunOptions, 'readOnly' | 'profile'>,
  source: string,
  budget: string[]
): string[] {
  const waits = Object.entries(plan.waits).filter(([, w]) => w.count > 0);
  return [
    `plan, ${source} (a real target's answers can change it a little):`,
    `  groups: ${plan.groups.join(', ')}${opts.readOnly ? ' (read-only: checks that need writes are skipped)' : ''}`,
    `  requests: ${plan.requests}, of which ${plan.writes} writes or token exchanges`,
    ...Object.entries(plan.byEndpoint)
      .sort((a, b) => b[1] - a[1])
      .map(([endpoint, n]) => `    ${String(n).padStart(5)}  ${endpoint}`),
    `  it would create: ${
      Object.entries(plan.created)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ') || 'nothing'
    }${opts.profile === 'certify' ? ' on the embedded reference (its list is already long enough)' : ''}`,
    ...budget,
  ].concat(
    `  waits it plans (real seconds, summed over checks side by side): ${waits.length ? waits.map(([cause, w]) => `${cause} ${(w.ms / 1000).toFixed(1)} s (${w.count})`).join(', ') : 'none'}`
  );
}
