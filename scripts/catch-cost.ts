// npm run catch-cost: for each fault of the generation phase, the requests the run had sent when the fault's
// check failed (median over seeds 1-10), and the phase's wall time on the clean reference at time scale 60.
import { FAULTS } from '../fixtures/reference/faults.ts';
import { runCommand } from '../src/cli/run.ts';
import { runOptions, type RunOptions } from '../src/cli/options.ts';
import type { RunReport } from '../src/engine/run/report.ts';

const GROUPS = ['vms', 'tasks', 'pagination', 'errors'];
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const GENERATION_FAULTS = [
  'memory-string-500',
  'quote-in-id-500',
  'negative-vcpus-accepted',
  'long-name-500',
  'unicode-name-500',
  'numeric-ids-some-records',
  'tag-filter-space-ignored',
  'page-boundary-duplicate',
  'task-regresses',
  'vm-never-listed',
];

async function run(seed: number, faults: string[] = []): Promise<{ report: RunReport; wallMs: number }> {
  const opts: RunOptions = runOptions({ timeScale: 60, seed, only: GROUPS });
  const started = Date.now();
  const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'catch-cost' }, () => {}, {
    faults,
    noDefaultOverlay: true,
  });
  return { report, wallMs: Date.now() - started };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const clean = [];
for (const seed of SEEDS) clean.push(await run(seed));
console.log(
  `clean reference, groups ${GROUPS.join(',')}, scale 60: wall median ${(median(clean.map((c) => c.wallMs)) / 1000).toFixed(1)} s, requests median ${median(clean.map((c) => c.report.traffic.requests))}, verdicts ${[...new Set(clean.map((c) => c.report.verdict))].join('/')}`
);
console.log('fault'.padEnd(28), 'check'.padEnd(26), 'caught'.padStart(7), 'requests to catch (median)');
for (const name of GENERATION_FAULTS) {
  const fault = FAULTS.find((f) => f.name === name)!;
  const costs: number[] = [];
  for (const seed of SEEDS) {
    const { report } = await run(seed, [name]);
    const c = report.checks.find((x) => x.id === fault.check);
    if (c && (c.status === 'failed' || c.status === 'warning')) costs.push(c.requestsAtEnd);
  }
  console.log(
    name.padEnd(28),
    fault.check.padEnd(26),
    `${costs.length}/${SEEDS.length}`.padStart(7),
    costs.length ? String(median(costs)) : '-'
  );
}
