// npm run certify-reference: issue 12's acceptance run as a CI gate, run alone (no other load on the machine, since
// the limit probes at time scale 60 must fit a burst of 301 requests in half a one-second window):
//   cloud-conformance run --profile certify --time-scale 60   against the embedded reference and its overlay.
// Exits 1 unless the verdict is conformant, every MUST clause is verified, no must check was skipped (a declared check
// whose optional design the overlay leaves out may be), and everything the run created was deleted.
import { runCommand } from '../src/cli/run.ts';
import { runOptions } from '../src/cli/options.ts';

const at = process.argv.indexOf('--time-scale');
const scale = at >= 0 ? Number(process.argv[at + 1]) : 60;
if (!Number.isFinite(scale) || scale <= 0) {
  console.error('usage: npm run certify-reference [-- --time-scale N]');
  process.exit(2);
}
const started = Date.now();
const { report, exitCode } = await runCommand(runOptions({ profile: 'certify', timeScale: scale, quiet: true }), { name: 'cloud-api-conformance', version: 'certify-reference' }, () => {});
const problems: string[] = [];
if (report.verdict !== 'conformant' || exitCode !== 0) problems.push(`verdict ${report.verdict} (exit ${exitCode})`);
for (const c of report.checks.filter((c) => c.status !== 'passed' && c.level !== 'should' && !c.undeclared)) problems.push(`${c.id}: ${c.status}: ${c.message}`);
for (const n of report.coverage?.notVerified.filter((n) => n.blocking) ?? []) problems.push(`not verified: ${n.clause} by ${n.check}: ${n.reason}`);
for (const e of report.ledger.filter((e) => e.kind !== 'api-key-revoked' && e.cleanup !== 'deleted')) problems.push(`not deleted: ${e.kind} ${e.name ?? e.id ?? ''} (${e.cleanup}: ${e.note ?? ''})`);
const created = report.ledger.filter((e) => e.kind !== 'api-key-revoked').length;
console.log(`certify on the embedded reference at time scale ${scale}: ${report.verdict} in ${((Date.now() - started) / 1000).toFixed(1)} s; ${report.coverage?.verified.length ?? 0} clauses verified, ${report.summary.passed} checks passed, ${created} resources created and ${report.ledger.filter((e) => e.cleanup === 'deleted').length} deleted; ${report.traffic.requests} requests`);
if (problems.length) {
  console.log(`GATE FAILED (${problems.length}):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('gate passed');
