// cloud-conformance verify: what can be checked of a JSON report offline, and what cannot.
import type { KeyObject } from 'node:crypto';
import type { ClauseList } from '../spec/clauses.ts';
import type { Check } from '../engine/run/check.ts';
import { computeCoverage, isIncomplete } from '../engine/run/coverage.ts';
import { clauseCounts, summarize, verdictOf, type Digests, type RunReport } from '../engine/run/report.ts';
import { digestsOf, exchangesOf, keyFingerprint, signatureHolds } from './integrity.ts';

type VerifyStatus = 'ok' | 'FAILED' | 'not checked';

interface VerifyLine {
  status: VerifyStatus;
  what: string;
}

interface Verification {
  verified: boolean;
  lines: VerifyLine[];
  /** What no offline check can establish, whatever the lines say. */
  offline: string[];
}

/** What verify compares the report with: this installation's version, documents and checks. */
interface Installed {
  version: string;
  digests: Digests;
  clauses: ClauseList;
  checks: readonly Check[];
}

const short = (hex: string) => hex.slice(0, 16);

/** Recomputes the report's digests and confirms its verdict, summary and coverage follow from its check statuses. */
export function verifyReport(report: RunReport, installed: Installed, publicKey?: KeyObject): Verification {
  const lines: VerifyLine[] = [];
  const say = (status: VerifyStatus, what: string) => lines.push({ status, what });
  digestLines(report, say);
  signatureLine(report, publicKey, say);
  consistencyLines(report, installed, say);
  documentLine(report, installed, say);
  const held = exchangesOf(report).length;
  const offline = [
    `that the target answered what the ${held} exchanges record: only a rerun shows it (${report.reproduce ? "the report's reproduce line" : "the run's command line"})`,
    `the ${Math.max(0, (report.traffic?.requests ?? 0) - held)} requests the report does not hold (evidence keeps a few exchanges per check; the run sent ${report.traffic?.requests ?? 'an unknown number of'})`,
    "the times (startedAt, finishedAt, each check's duration)",
    report.integrity?.signature && publicKey
      ? "that the key which signed is the certifier's: compare its fingerprint with one obtained from them apart from the report"
      : 'that the run wrote the digests: without a signature checked with a key you trust, an editor can recompute them (run with --sign KEY; verify with --public-key)',
  ];
  return { verified: !lines.some((l) => l.status === 'FAILED'), lines, offline };
}

function digestLines(report: RunReport, say: (s: VerifyStatus, what: string) => void): void {
  const recorded = report.integrity;
  if (!recorded) {
    say('FAILED', 'no integrity block: nothing ties this file to the run (written without one, or removed)');
    return;
  }
  const now = digestsOf(report);
  if (recorded.report === now.report) say('ok', `report digest sha256:${short(now.report)}… (${now.algorithm})`);
  else
    say(
      'FAILED',
      `report digest: recorded sha256:${short(recorded.report ?? '')}…, recomputed sha256:${short(now.report)}…: the report was changed after it was written`
    );
  if (recorded.checks === now.checks) say('ok', `checks: ${report.checks.length} checks, digest matches`);
  else say('FAILED', `checks: the digest differs: a check's status, message, level or evidence was edited`);
  const before = new Map((recorded.exchanges ?? []).map((e) => [e.at, e.sha256]));
  const after = new Map(now.exchanges.map((e) => [e.at, e.sha256]));
  const removed = [...before.keys()].filter((at) => !after.has(at));
  const added = [...after.keys()].filter((at) => !before.has(at));
  const changed = [...after.keys()].filter((at) => before.has(at) && before.get(at) !== after.get(at));
  // An exchange removed from the middle of a list shifts the rest: name the first few positions that moved.
  const list = (xs: string[]) => xs.slice(0, 3).join(', ') + (xs.length > 3 ? ` and ${xs.length - 3} more` : '');
  if (!removed.length && !added.length && !changed.length)
    say('ok', `exchanges: ${now.exchanges.length} held, every digest matches`);
  else {
    const parts = [
      removed.length ? `${removed.length} removed (${list(removed)})` : '',
      added.length ? `${added.length} added (${list(added)})` : '',
      changed.length ? `${changed.length} changed (${list(changed)})` : '',
    ].filter(Boolean);
    say('FAILED', `exchanges: ${parts.join('; ')}`);
  }
}

function signatureLine(
  report: RunReport,
  publicKey: KeyObject | undefined,
  say: (s: VerifyStatus, what: string) => void
): void {
  const signature = report.integrity?.signature;
  if (!signature) {
    if (publicKey)
      say('FAILED', `signature: the report is not signed, but --public-key ${keyFingerprint(publicKey)} was given`);
    else say('not checked', 'signature: the report is not signed (run with --sign KEY)');
    return;
  }
  if (!publicKey) {
    say('not checked', `signature: Ed25519 by key ${signature.key}, not checked (give --public-key)`);
    return;
  }
  const fingerprint = keyFingerprint(publicKey);
  if (fingerprint !== signature.key)
    say('FAILED', `signature: made by key ${signature.key}, not by the key given (${fingerprint})`);
  else if (!signatureHolds(report.integrity!, publicKey))
    say(
      'FAILED',
      `signature: Ed25519 by key ${signature.key} does not verify: the integrity block was changed after it was signed`
    );
  else say('ok', `signature: Ed25519 by key ${signature.key} verifies over the recorded digests`);
}

type Say = (s: VerifyStatus, what: string) => void;

/** The summary, each check's record, the errors listed, the verdict and the coverage follow from the statuses. */
function consistencyLines(report: RunReport, installed: Installed, say: Say): void {
  summaryLine(report, say);
  checkRecordLines(report, say);
  const coverage = report.coverage;
  if (report.startupFailure) {
    if (report.verdict === 'error' && report.checks.length === 0)
      say('ok', 'verdict error follows: the run could not start and judged nothing');
    else say('FAILED', `verdict ${report.verdict}: the run could not start, so the verdict is error with no checks`);
    return;
  }
  if (!coverage) {
    say('FAILED', 'coverage: missing, so the verdict cannot be recomputed');
    return;
  }
  verdictLine(report, coverage, say);
  coverageLine(report, coverage, installed, say);
}

/** The summary's counts are those of the check statuses. */
function summaryLine(report: RunReport, say: Say): void {
  const summary = summarize(report.checks);
  const recorded = report.summary ?? { passed: NaN, failed: NaN, skipped: NaN, warnings: NaN };
  const text = (s: RunReport['summary']) =>
    `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.warnings} warnings`;
  if ((['passed', 'failed', 'skipped', 'warnings'] as const).every((k) => summary[k] === recorded[k]))
    say('ok', `summary (${text(summary)}) follows from the check statuses`);
  else say('FAILED', `summary: the report says ${text(recorded)}, the check statuses give ${text(summary)}`);
}

/** Each check's own record holds together, and the errors the report lists are the checks in error. */
function checkRecordLines(report: RunReport, say: Say): void {
  const checks = report.checks;
  // Findings only on a failed or warned check, expectations only on one too.
  const incoherent = checks.filter(
    (c) =>
      (c.findings?.length && !['failed', 'warning'].includes(c.status)) ||
      (c.expected && !['failed', 'warning'].includes(c.status))
  );
  if (incoherent.length)
    say(
      'FAILED',
      `checks: ${incoherent.map((c) => `${c.id} is ${c.status} but records ${c.findings?.length ? 'failed assertions' : 'an expected failure'}`).join('; ')}`
    );
  const errors = checks
    .filter((c) => c.status === 'error')
    .map((c) => c.id)
    .sort();
  const listedErrors = (report.errors ?? []).map((e) => e.check).sort();
  if (JSON.stringify(errors) !== JSON.stringify(listedErrors))
    say(
      'FAILED',
      `errors: the report lists ${listedErrors.join(', ') || 'none'}, the check statuses give ${errors.join(', ') || 'none'}`
    );
}

type Coverage = NonNullable<RunReport['coverage']>;

/** The verdict is the one the check statuses and the coverage give. */
function verdictLine(report: RunReport, coverage: Coverage, say: Say): void {
  const verdict = verdictOf(report.checks, {
    incompleteCoverage: isIncomplete(coverage),
    requireComplete: report.requireComplete === true,
  });
  if (verdict === report.verdict)
    say(
      'ok',
      `verdict ${verdict} follows from the check statuses and the coverage${report.requireComplete ? ' (completeness required)' : ''}`
    );
  else say('FAILED', `verdict: the report says ${report.verdict}, the check statuses and coverage give ${verdict}`);
}

/**
 * Coverage: a verified clause has no citing MUST check left undecided; a clause not verified names a check that did
 * not decide; with this installation's version and clause list, the coverage recomputed whole is the same.
 */
function coverageLine(report: RunReport, coverage: Coverage, installed: Installed, say: Say): void {
  const checks = report.checks;
  const byId = new Map(checks.map((c) => [c.id, c]));
  const undecided = (id: string) => ['skipped', 'error'].includes(byId.get(id)?.status ?? 'skipped');
  const wrong: string[] = [];
  for (const clause of coverage.verified) {
    const open = checks.filter((c) => c.level === 'must' && c.clauses.includes(clause) && undecided(c.id));
    if (open.length) wrong.push(`${clause} is verified but ${open.map((c) => c.id).join(', ')} did not decide`);
  }
  for (const n of coverage.notVerified)
    if (!undecided(n.check))
      wrong.push(`${n.clause} is not verified for ${n.check}, which ${byId.get(n.check)!.status}`);
  // The one clause count every format shows follows from the lists it counts.
  if (coverage.counts) {
    const again = clauseCounts({ ...coverage, counts: undefined });
    if (JSON.stringify(again) !== JSON.stringify(coverage.counts))
      wrong.push(`the clause count says "${coverage.counts.words}", the lists give "${again.words}"`);
  }
  // The same version with the same clause list: recompute the coverage whole.
  const sameSuite = report.tool?.version === installed.version && report.digests?.clauses === installed.digests.clauses;
  if (sameSuite && !wrong.length) {
    const again = computeCoverage(installed.clauses, installed.checks, checks, { overlay: !!report.overlay });
    // The failed clauses too, where the report records them (reports before coverage.failed do not).
    const key = (c: typeof coverage) =>
      JSON.stringify([
        [...c.verified].sort(),
        c.notVerified.map((n) => `${n.clause}/${n.check}/${n.blocking}`).sort(),
        coverage.failed ? [...(c.failed ?? [])].sort() : [],
      ]);
    if (key(again) !== key(coverage)) {
      const missing = again.verified.filter((c) => !coverage.verified.includes(c));
      const extra = coverage.verified.filter((c) => !again.verified.includes(c));
      wrong.push(
        `recomputed from the statuses, ${[missing.length ? `${missing.join(', ')} would be verified` : '', extra.length ? `${extra.join(', ')} would not be verified` : ''].filter(Boolean).join('; ') || 'the clauses left open differ'}`
      );
    }
  }
  if (wrong.length)
    say(
      'FAILED',
      `coverage: ${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? `; and ${wrong.length - 5} more` : ''}`
    );
  else
    say(
      'ok',
      `coverage (${coverage.verified.length} clauses verified, ${new Set(coverage.notVerified.map((n) => n.clause)).size} not) follows from the check statuses${sameSuite ? ", recomputed with this installation's clause list" : ''}`
    );
}

function documentLine(report: RunReport, installed: Installed, say: (s: VerifyStatus, what: string) => void): void {
  const d = report.digests;
  if (!d) {
    say('not checked', 'documents: the report names no document digests');
    return;
  }
  const same = d.clauses === installed.digests.clauses && d.openapi === installed.digests.openapi;
  const seed =
    d.seed && installed.digests.seed
      ? d.seed.sha256 === installed.digests.seed.sha256
        ? ' and the seed'
        : ' (the seed differs)'
      : '';
  if (same)
    say(
      'ok',
      `documents: the clause list and OpenAPI document${seed} are those of this installation (${installed.version})`
    );
  else if (report.tool?.version !== installed.version)
    say(
      'not checked',
      `documents: the report was written by version ${report.tool?.version}, this is ${installed.version}: compare clauses sha256:${short(d.clauses)}… and openapi sha256:${short(d.openapi)}… with that version's spec/`
    );
  else
    say(
      'not checked',
      `documents: version ${installed.version} too, but the clause list or OpenAPI document differs from this installation's (a modified checkout?)`
    );
}

/** The terminal lines of a verification. */
export function verificationText(file: string, v: Verification): string[] {
  const width = Math.max(...v.lines.map((l) => l.status.length));
  return [
    `verify ${file}`,
    ...v.lines.map((l) => `  ${l.status.padEnd(width)}  ${l.what}`),
    'cannot be checked offline:',
    ...v.offline.map((o) => `  - ${o}`),
    v.verified
      ? 'verified: the report is as the run wrote it, and its verdict follows from what it records'
      : `NOT VERIFIED: ${v.lines.filter((l) => l.status === 'FAILED').length} of ${v.lines.length} verifications failed`,
  ];
}
