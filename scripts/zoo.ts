// npm run zoo: the suite judged on implementations of the seed written blind (fixtures/zoo/, each by an author who read
// only the seed and a brief). Every member clean in each profile asked for, zero-config and with the overlay written
// for it from its CHOICES.md (fixtures/zoo/overlays/): no failure, no warning, since a conforming target is never
// failed. Then every fault of its own catalogue, in the cheapest profile that catches it: the faults reachable from the
// seed (scripts/zoo/kinds.yaml) zero-config, the faults that need a declared operation with the member's overlay. It
// prints the kill rate per member, level and kind, per clause, and each miss with the class the team traced it to
// (scripts/zoo/diagnoses.yaml), or "not diagnosed yet".
//
// Options: --members a,b   --profiles quick,full,certify (the clean runs; none: no clean run)   --clean-only
//          --overlay-profiles quick,... (the clean runs with each member's overlay; default: as --profiles)
//          --faults a,b   --ladder quick,certify (the profiles a fault is tried in, in order, until one catches it)
//          --time-scale N (default 60)   --concurrency N (default 2)   --json PATH
// Exit: 0 when every clean run is clean; 1 when any clean run failed, warned or could not start; 2 on bad usage.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { listMembers, readCatalogue, startMember, ZOO_DIR, type MemberFault } from './zoo/members.ts';
import { runSuite, type Profile, type SuiteRun } from './zoo/suite-run.ts';
import {
  caught,
  judgeClean,
  killRates,
  nearestClause,
  parseDiagnoses,
  parseKinds,
  type ClauseRef,
  type Diagnosis,
  type FaultKind,
} from './zoo/verdicts.ts';
import { allChecks } from '../suites/index.ts';

const PROFILES: Profile[] = ['quick', 'full', 'certify'];

interface Options {
  members?: string[];
  profiles: Profile[];
  overlayProfiles?: Profile[];
  ladder: Profile[];
  cleanOnly: boolean;
  faults?: string[];
  timeScale: number;
  concurrency: number;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  // Certify does everything full does and more, in about the same time against a member: a miss in quick goes to certify.
  const opts: Options = {
    profiles: [...PROFILES],
    ladder: ['quick', 'certify'],
    cleanOnly: false,
    timeScale: 60,
    concurrency: 2,
  };
  const profiles = (list: string): Profile[] =>
    list === 'none'
      ? []
      : list.split(',').map((p) => (PROFILES.includes(p as Profile) ? (p as Profile) : usage(`unknown profile ${p}`)));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--members') opts.members = value().split(',');
    else if (a === '--profiles') opts.profiles = profiles(value());
    else if (a === '--overlay-profiles') opts.overlayProfiles = profiles(value());
    else if (a === '--ladder') opts.ladder = profiles(value());
    else if (a === '--clean-only') opts.cleanOnly = true;
    else if (a === '--faults') opts.faults = value().split(',');
    else if (a === '--time-scale') opts.timeScale = Number(value());
    else if (a === '--concurrency') opts.concurrency = Math.max(1, Number(value()));
    else if (a === '--json') opts.json = value();
    else usage(`unknown option ${a}`);
  }
  return opts;
}

function usage(why: string): never {
  console.error(
    `zoo: ${why}; options: --members a,b --profiles quick,full,certify|none --overlay-profiles quick,...|none --ladder quick,certify --clean-only --faults a,b --time-scale N --concurrency N --json PATH`
  );
  process.exit(2);
}

/** Runs jobs with at most `n` at once, in order of submission. */
async function pool<T, R>(items: readonly T[], n: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!, i);
    })
  );
  return results;
}

/** The overlay its implementer would write for a member, from its CHOICES.md (fixtures/zoo/overlays/<member>.yaml). */
function overlayOf(member: string): string | undefined {
  const file = path.join(ZOO_DIR, 'overlays', `${member}.yaml`);
  return existsSync(file) ? file : undefined;
}

async function runAgainst(
  member: string,
  profile: Profile,
  timeScale: number,
  overlay: string | undefined,
  faults?: string[]
): Promise<SuiteRun> {
  const started = await startMember(member, { timeScale, faults });
  try {
    return await runSuite(started.settings, profile, timeScale, overlay);
  } finally {
    await started.stop();
  }
}

interface CleanResult {
  member: string;
  profile: Profile;
  overlay: boolean;
  verdict: string;
  wallMs: number;
  problems: string[];
  undecided: string[];
}

interface FaultResult {
  member: string;
  fault: MemberFault;
  kind: FaultKind;
  /** Why it needs a declaration, or why it cannot be observed. */
  because?: string;
  /** True when it was run with the member's overlay (a declared fault). */
  overlay: boolean;
  caughtIn?: Profile;
  by: string[];
  clause?: string;
  /** For a miss: the checks citing the nearest clause, which should have caught it. */
  shouldHaveCaught: string[];
  diagnosis?: Diagnosis;
  wallMs: number;
}

const opts = parseArgs(process.argv.slice(2));
const known = listMembers();
const members = opts.members ?? known;
for (const m of members) if (!known.includes(m)) usage(`no member ${m} in fixtures/zoo (members: ${known.join(', ')})`);
if (members.length === 0) usage('fixtures/zoo holds no member');

const clauses = (YAML.parse(readFileSync('spec/clauses.yaml', 'utf8')) as { clauses: ClauseRef[] }).clauses;
const kinds = parseKinds(readFileSync('scripts/zoo/kinds.yaml', 'utf8'));
const diagnoses = parseDiagnoses(readFileSync('scripts/zoo/diagnoses.yaml', 'utf8'));
const checksOf = (clause: string) => allChecks.filter((c) => c.clauses.includes(clause)).map((c) => c.id);
const started = Date.now();

// Builds each member once (go build, npm ci) before anything is timed.
const catalogues = new Map<string, MemberFault[]>();
for (const m of members) catalogues.set(m, await readCatalogue(m));
console.log(
  `zoo: ${members.length} members (${members.map((m) => `${m}: ${catalogues.get(m)!.length} faults${overlayOf(m) ? ', overlay' : ''}`).join(', ')}), time scale ${opts.timeScale}`
);

// ---- clean runs: a false failure or warning on any member fails the gate -------------------------------------------
// Each clean configuration runs once, whether the gate asked for it or a fault run needs it as its baseline.
const cleanRuns = new Map<string, Promise<CleanResult & { run: SuiteRun }>>();
function cleanRun(member: string, profile: Profile, withOverlay: boolean) {
  const key = `${member} ${profile} ${withOverlay}`;
  let p = cleanRuns.get(key);
  if (!p) {
    p = runAgainst(member, profile, opts.timeScale, withOverlay ? overlayOf(member) : undefined).then((run) => {
      const judged = judgeClean(run, profile);
      const label = `${member} ${profile}${withOverlay ? ' (overlay)' : ''}`;
      console.log(
        `  clean ${label}: ${run.verdict} in ${(run.wallMs / 1000).toFixed(1)} s${judged.clean ? '' : `: ${judged.problems.length} false findings`}`
      );
      for (const problem of judged.problems) console.log(`      ${problem.slice(0, 600)}`);
      return { member, profile, overlay: withOverlay, verdict: run.verdict, wallMs: run.wallMs, ...judged, run };
    });
    cleanRuns.set(key, p);
  }
  return p;
}
const cleanJobs = members.flatMap((member) => [
  ...opts.profiles.map((profile) => ({ member, profile, overlay: false })),
  ...(overlayOf(member)
    ? (opts.overlayProfiles ?? opts.profiles).map((profile) => ({ member, profile, overlay: true }))
    : []),
]);
const cleanResults = await pool(cleanJobs, opts.concurrency, (j) => cleanRun(j.member, j.profile, j.overlay));

// ---- faults: each in the cheapest profile that catches it ----------------------------------------------------------
const faultJobs = opts.cleanOnly
  ? []
  : members.flatMap((member) =>
      catalogues
        .get(member)!
        .filter((f) => !opts.faults || opts.faults.includes(f.name))
        .map((fault) => ({ member, fault }))
    );
const faultResults: FaultResult[] = await pool(faultJobs, opts.concurrency, async ({ member, fault }) => {
  const t0 = Date.now();
  const entry = kinds.get(member)?.get(fault.name);
  const kind: FaultKind = entry?.kind ?? 'seed';
  const clause = fault.level === 'MUST' ? nearestClause(fault.clause, clauses)?.id : undefined;
  const overlay = kind === 'declared' ? overlayOf(member) : undefined;
  const base = { member, fault, kind, because: entry?.because, overlay: !!overlay, clause };
  const done = (r: Partial<FaultResult>): FaultResult => ({
    ...base,
    by: [],
    shouldHaveCaught: [],
    ...r,
    diagnosis: r.caughtIn ? undefined : diagnoses.get(`${member}/${fault.name}`),
    wallMs: Date.now() - t0,
  });
  if (kind === 'unobservable' || (kind === 'declared' && !overlay)) {
    console.log(
      `  not run ${member} ${fault.name}: ${kind === 'declared' ? 'needs a declaration and the member has no overlay' : entry?.because}`
    );
    return done({});
  }
  for (const profile of opts.ladder) {
    const run = await runAgainst(member, profile, opts.timeScale, overlay, [fault.name]);
    const c = caught(fault, run, (await cleanRun(member, profile, !!overlay)).run);
    if (c.caught) {
      console.log(`  caught ${member} ${fault.name} (${fault.level}, ${kind}) in ${profile} by ${c.by.join(', ')}`);
      return done({ caughtIn: profile, by: c.by });
    }
  }
  console.log(
    `  MISSED ${member} ${fault.name} (${fault.level}, ${kind}${clause ? `, ${clause}` : ''}): ${fault.description}`
  );
  return done({ shouldHaveCaught: clause ? checksOf(clause) : [] });
});

// ---- summary --------------------------------------------------------------------------------------------------------
console.log('\nclean runs:');
for (const r of cleanResults)
  console.log(
    `  ${r.member.padEnd(18)} ${r.profile.padEnd(8)} ${(r.overlay ? 'overlay' : 'zero-config').padEnd(12)} ${r.verdict.padEnd(14)} ${(r.wallMs / 1000).toFixed(1).padStart(6)} s  ${r.problems.length ? `FALSE FINDINGS: ${r.problems.length}` : 'clean'}`
  );
const ratesByMember: Record<string, Record<string, { caught: number; of: number }>> = {};
if (faultResults.length) printFaultSummary(faultResults);
console.log(`\nwall time: ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (opts.json)
  writeFileSync(
    opts.json,
    JSON.stringify(
      {
        timeScale: opts.timeScale,
        clean: cleanResults.map(({ run: _run, ...r }) => r),
        rates: ratesByMember,
        faults: faultResults,
      },
      null,
      2
    )
  );
const falseFindings = cleanResults.filter((r) => r.problems.length > 0);
if (falseFindings.length) {
  console.log(`zoo gate failed: ${falseFindings.length} clean run(s) with a false finding`);
  process.exit(1);
}
console.log('zoo gate passed');

function printFaultSummary(results: FaultResult[]): void {
  const pct = (e?: { caught: number; of: number }) =>
    e ? `${e.caught}/${e.of}${e.of ? ` (${Math.round((100 * e.caught) / e.of)}%)` : ''}` : '-';
  console.log('\nkill rate per member (caught / faults; seed: zero-config; declared: with its overlay):');
  console.log(
    `  ${'member'.padEnd(18)} ${['MUST seed', 'MUST declared', 'SHOULD seed', 'SHOULD declared'].map((h) => h.padEnd(16)).join(' ')} unobservable`
  );
  for (const m of members) {
    const mine = results.filter((r) => r.member === m);
    const rates = killRates(mine);
    ratesByMember[m] = rates;
    const cells = ['MUST seed', 'MUST declared', 'SHOULD seed', 'SHOULD declared'].map((k) => pct(rates[k]).padEnd(16));
    console.log(`  ${m.padEnd(18)} ${cells.join(' ')} ${mine.filter((r) => r.kind === 'unobservable').length}`);
  }
  const byClause = new Map<string, { caught: number; of: number }>();
  for (const r of results.filter((x) => x.fault.level === 'MUST' && x.kind !== 'unobservable')) {
    const e = tally(byClause, r.clause ?? '(no clause matched)');
    e.of++;
    if (r.caughtIn) e.caught++;
  }
  console.log('\nMUST faults per clause (caught / faults):');
  for (const [k, e] of [...byClause].sort()) console.log(`  ${k.padEnd(28)} ${e.caught}/${e.of}`);
  const misses = results.filter((r) => !r.caughtIn && r.kind !== 'unobservable');
  const byClass = new Map<string, FaultResult[]>();
  for (const r of misses) {
    const c = r.diagnosis?.class ?? 'not diagnosed yet';
    byClass.set(c, [...(byClass.get(c) ?? []), r]);
  }
  console.log(`\nmisses (${misses.length}), by class:`);
  for (const [c, list] of [...byClass].sort()) {
    console.log(`  ${c} (${list.length}):`);
    for (const r of list)
      console.log(
        `    ${r.member} ${r.fault.name} (${r.fault.level}, ${r.kind}${r.clause ? `, ${r.clause}` : ''}): ${r.diagnosis?.why ?? r.fault.description}${!r.diagnosis && r.shouldHaveCaught.length ? `\n        checks citing ${r.clause}: ${r.shouldHaveCaught.join(', ')}` : ''}`
      );
  }
}

function tally(map: Map<string, { caught: number; of: number }>, key: string) {
  let e = map.get(key);
  if (!e) map.set(key, (e = { caught: 0, of: 0 }));
  return e;
}
