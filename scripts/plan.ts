// npm run plan: measures the plans --dry-run prints and commits them to suites/plan.json. Each selection (a profile,
// the embedded reference's overlay or none, every group or one) is run as a dry run would measure it: against the
// embedded reference in this process, seed 1, at the clock the run would assume (the embedded reference's own for its
// overlay, real time for a --base-url without one). The full and certify profiles wait out rate windows; they run side
// by side with the quick selections, two of those at a time.
//   npm run plan                       every selection
//   npm run plan -- --profiles quick   only these profiles' selections; the others are kept as they are
import { existsSync, writeFileSync } from 'node:fs';
import { allChecks } from '../suites/index.ts';
import { runOptions } from '../src/cli/options.ts';
import { EMBEDDED_TIME_SCALE, defaultTimeScale } from '../src/cli/defaults.ts';
import { measureReport } from '../src/cli/run.ts';
import {
  PLAN_FILE,
  planOf,
  readPlanFile,
  type PlanFile,
  type PlanSelection,
  type TrafficPlan,
} from '../src/cli/plan.ts';
import type { Profile } from '../src/engine/config/config.ts';

const at = process.argv.indexOf('--profiles');
const profiles = (at >= 0 ? process.argv[at + 1]! : 'quick,full,certify').split(',') as Profile[];
if (!profiles.every((p) => ['quick', 'full', 'certify'].includes(p))) {
  console.error('usage: npm run plan [-- --profiles quick,full,certify]');
  process.exit(2);
}

const groups = [...new Set(allChecks.map((c) => c.group))];
const selections: PlanSelection[] = profiles.flatMap((profile) =>
  (['reference', 'none'] as const).flatMap((overlay) => [
    { profile, overlay },
    // One group alone is what a pipeline split by group dry-runs; the long profiles are measured for every group only.
    ...(profile === 'quick' ? groups.map((only) => ({ profile, overlay, only })) : []),
  ])
);

async function measure(selection: PlanSelection): Promise<TrafficPlan> {
  const started = Date.now();
  const baseUrl = selection.overlay === 'none' ? 'http://127.0.0.1:9' : undefined;
  const opts = runOptions({
    profile: selection.profile,
    seed: 1,
    timeScale: defaultTimeScale(baseUrl),
    ...(selection.only ? { only: [selection.only] } : {}),
    // A --base-url without --overlay: the dry run measures the embedded reference without its overlay; nothing is sent here.
    ...(baseUrl ? { baseUrl } : {}),
  });
  const report = await measureReport(opts, { name: 'cloud-api-conformance', version: 'plan' });
  console.log(
    `${selection.profile} ${selection.overlay} ${selection.only ?? 'every group'}: ${report.traffic.requests} requests, ${report.traffic.writes} writes, ${((Date.now() - started) / 1000).toFixed(1)} s`
  );
  return planOf(selection, report, new Date().toISOString());
}

/** The long selections start at once; the quick ones two at a time beside them. */
async function measureAll(): Promise<TrafficPlan[]> {
  const long = selections.filter((s) => s.profile !== 'quick').map(measure);
  const quick = selections.filter((s) => s.profile === 'quick');
  const measured: TrafficPlan[] = [];
  const lane = async () => {
    for (let next = quick.shift(); next; next = quick.shift()) measured.push(await measure(next));
  };
  await Promise.all([lane(), lane()]);
  return [...measured, ...(await Promise.all(long))];
}

const kept = existsSync(PLAN_FILE) ? readPlanFile().plans.filter((p) => !profiles.includes(p.profile)) : [];
const key = (p: PlanSelection) => `${['quick', 'full', 'certify'].indexOf(p.profile)} ${p.overlay} ${p.only ?? ''}`;
const file: PlanFile = {
  about: `What --dry-run prints for each selection: measured by \`npm run plan\` against the embedded reference (seed 1, at the clock the run assumes: time scale ${EMBEDDED_TIME_SCALE} with its overlay, real time without); test/cli/plan.test.ts holds it to the checks.`,
  plans: [...kept, ...(await measureAll())].sort((a, b) => (key(a) < key(b) ? -1 : 1)),
};
writeFileSync(PLAN_FILE, JSON.stringify(file, null, 2) + '\n');
console.log(`${file.plans.length} plans written to suites/plan.json`);
