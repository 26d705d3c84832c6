// npm run zoo: the suite judged on implementations of the seed written blind (fixtures/zoo/, each by an author who read
// only the seed and a brief). Every member clean in each profile asked for (no failure, no warning: a conforming target
// is never failed), then every fault of its own catalogue in the cheapest profile that catches it: the kill rate per
// member, per clause and per level, and each miss with the checks that cite the clause it breaks.
//
// Options: --members a,b   --profiles quick,full,certify (the clean runs; none: no clean run)   --clean-only   --faults a,b
//          --ladder quick,certify (the profiles a fault is tried in, in order, until one catches it)
//          --time-scale N (default 60)   --concurrency N (default 2)   --json PATH
// Exit: 0 when every clean run is clean; 1 when any clean run failed, warned or could not start; 2 on bad usage.
import { readFileSync, writeFileSync } from 'node:fs';
import YAML from 'yaml';
import { listMembers, readCatalogue, startMember, type MemberFault } from './zoo/members.ts';
import { runSuite, type Profile, type SuiteRun } from './zoo/suite-run.ts';
import { caught, judgeClean, nearestClause, type ClauseRef } from './zoo/verdicts.ts';
import { allChecks } from '../suites/index.ts';

interface Options {
  members?: string[];
  profiles: Profile[];
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
    profiles: ['quick', 'full', 'certify'],
    ladder: ['quick', 'certify'],
    cleanOnly: false,
    timeScale: 60,
    concurrency: 2,
  };
  const profiles = (list: string): Profile[] =>
    list === 'none'
      ? []
      : list
          .split(',')
          .map((p) => (['quick', 'full', 'certify'].includes(p) ? (p as Profile) : usage(`unknown profile ${p}`)));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v!;
    };
    if (a === '--members') opts.members = value().split(',');
    else if (a === '--profiles') opts.profiles = profiles(value());
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
    `zoo: ${why}; options: --members a,b --profiles quick,full,certify|none --ladder quick,certify --clean-only --faults a,b --time-scale N --concurrency N --json PATH`
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

async function runAgainst(member: string, profile: Profile, timeScale: number, faults?: string[]): Promise<SuiteRun> {
  const started = await startMember(member, { timeScale, faults });
  try {
    return await runSuite(started.settings, profile, timeScale);
  } finally {
    await started.stop();
  }
}

interface FaultResult {
  member: string;
  fault: MemberFault;
  caughtIn?: Profile;
  by: string[];
  clause?: string;
  /** For a miss: the checks citing the nearest clause, which should have caught it. */
  shouldHaveCaught: string[];
  wallMs: number;
}

const opts = parseArgs(process.argv.slice(2));
const known = listMembers();
const members = opts.members ?? known;
for (const m of members) if (!known.includes(m)) usage(`no member ${m} in fixtures/zoo (members: ${known.join(', ')})`);
if (members.length === 0) usage('fixtures/zoo holds no member');

const clauses = (YAML.parse(readFileSync('spec/clauses.yaml', 'utf8')) as { clauses: ClauseRef[] }).clauses;
const checksOf = (clause: string) => allChecks.filter((c) => c.clauses.includes(clause)).map((c) => c.id);
const started = Date.now();

// Builds each member once (go build, npm ci) before anything is timed.
const catalogues = new Map<string, MemberFault[]>();
for (const m of members) catalogues.set(m, await readCatalogue(m));
console.log(
  `zoo: ${members.length} members (${members.map((m) => `${m}: ${catalogues.get(m)!.length} faults`).join(', ')}), time scale ${opts.timeScale}`
);

// ---- clean runs: a false failure or warning on any member fails the gate -------------------------------------------
const cleanJobs = members.flatMap((member) => opts.profiles.map((profile) => ({ member, profile })));
const cleanResults = await pool(cleanJobs, opts.concurrency, async ({ member, profile }) => {
  const run = await runAgainst(member, profile, opts.timeScale);
  const judged = judgeClean(run, profile);
  console.log(
    `  clean ${member} ${profile}: ${run.verdict} in ${(run.wallMs / 1000).toFixed(1)} s${judged.clean ? '' : `: ${judged.problems.length} false findings`}`
  );
  for (const p of judged.problems) console.log(`      ${p.slice(0, 600)}`);
  return {
    member,
    profile,
    verdict: run.verdict,
    wallMs: run.wallMs,
    problems: judged.problems,
    undecided: judged.undecided,
  };
});

// ---- faults: each in the cheapest profile that catches it ----------------------------------------------------------
const ladder = opts.ladder;
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
  const clause = fault.level === 'MUST' ? nearestClause(fault.clause, clauses)?.id : undefined;
  for (const profile of ladder) {
    const run = await runAgainst(member, profile, opts.timeScale, [fault.name]);
    const c = caught(fault, run);
    if (c.caught) {
      console.log(`  caught ${member} ${fault.name} (${fault.level}) in ${profile} by ${c.by.join(', ')}`);
      return { member, fault, caughtIn: profile, by: c.by, clause, shouldHaveCaught: [], wallMs: Date.now() - t0 };
    }
  }
  const shouldHaveCaught = clause ? checksOf(clause) : [];
  console.log(`  MISSED ${member} ${fault.name} (${fault.level}${clause ? `, ${clause}` : ''}): ${fault.description}`);
  return { member, fault, by: [], clause, shouldHaveCaught, wallMs: Date.now() - t0 };
});

// ---- summary --------------------------------------------------------------------------------------------------------
console.log('\nclean runs:');
for (const r of cleanResults)
  console.log(
    `  ${r.member.padEnd(18)} ${r.profile.padEnd(8)} ${r.verdict.padEnd(14)} ${(r.wallMs / 1000).toFixed(1).padStart(6)} s  ${r.problems.length ? `FALSE FINDINGS: ${r.problems.length}` : 'clean'}`
  );
if (faultResults.length) {
  console.log('\nkill rate per member (caught / faults):');
  for (const m of members) {
    const mine = faultResults.filter((r) => r.member === m);
    const rate = (level: string) => {
      const of = mine.filter((r) => r.fault.level === level);
      return `${of.filter((r) => r.caughtIn).length}/${of.length}`;
    };
    const byProfile = ladder.map((p) => `${p} ${mine.filter((r) => r.caughtIn === p).length}`).join(', ');
    console.log(`  ${m.padEnd(18)} MUST ${rate('MUST').padEnd(7)} SHOULD ${rate('SHOULD').padEnd(7)} (${byProfile})`);
  }
  const byClause = new Map<string, { caught: number; of: number }>();
  for (const r of faultResults.filter((x) => x.fault.level === 'MUST')) {
    const k = r.clause ?? '(no clause matched)';
    const e = byClause.get(k) ?? { caught: 0, of: 0 };
    e.of++;
    if (r.caughtIn) e.caught++;
    byClause.set(k, e);
  }
  console.log('\nMUST faults per clause (caught / faults):');
  for (const [k, e] of [...byClause].sort()) console.log(`  ${k.padEnd(28)} ${e.caught}/${e.of}`);
  const misses = faultResults.filter((r) => !r.caughtIn);
  console.log(`\nmisses (${misses.length}):`);
  for (const r of misses)
    console.log(
      `  ${r.member} ${r.fault.name} (${r.fault.level}${r.clause ? `, ${r.clause}` : ''}): ${r.fault.description}${r.shouldHaveCaught.length ? `\n      checks citing ${r.clause}: ${r.shouldHaveCaught.join(', ')}` : ''}`
    );
}
console.log(`\nwall time: ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (opts.json)
  writeFileSync(
    opts.json,
    JSON.stringify({ timeScale: opts.timeScale, clean: cleanResults, faults: faultResults }, null, 2)
  );
const falseFindings = cleanResults.filter((r) => r.problems.length > 0);
if (falseFindings.length) {
  console.log(`zoo gate failed: ${falseFindings.length} clean run(s) with a false finding`);
  process.exit(1);
}
console.log('zoo gate passed');
