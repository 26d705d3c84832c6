import type { Evidence, Level, Status } from '../outcome/outcome.ts';
import type { Observations, S3Capability } from '../outcome/observations.ts';
import type { Digests } from './digests.ts';
import type { StartupFailureReport } from '../identity/startup-failure.ts';
import type { LimitProbeTrace } from '../limits/trace.ts';
import type { LimitProbeStats } from '../limits/stats.ts';
import type { DomainDimension } from '../../spec/clauses.ts';

// The report names every type it carries, so src/report/ reads the model from here.
export type { Digests, LimitProbeStats, LimitProbeTrace, StartupFailureReport };
import type { LedgerReport, LeftBehind } from '../target/ledger.ts';
export { ledgerOf } from '../target/ledger.ts';
export type { LedgerReport };
import { toCurl, type CurlTls } from '../transport/exchange.ts';
import type { Profile, RunConfig } from '../config/config.ts';
import { proxyFor, withoutCredentials } from '../transport/connection.ts';
import type { WaitTotals } from '../transport/waits.ts';

/** One check's result, as the JSON report carries it (field names are a public contract). */
export interface CheckReport {
  id: string;
  group: string;
  clauses: string[];
  /** The check's highest level (kept under this name for the JSON contract; checkLevel says the same by name). */
  level: Level;
  /** The check's highest level: what it can hold a target to at most. */
  checkLevel?: Level;
  /** A failed or warning check: the level of the assertion that failed (its lead finding's), which every format shows. */
  failedAt?: Level;
  status: Status;
  message: string;
  evidence?: Evidence;
  /**
   * Every failed assertion with its own level (the lead one first), when the check asserts at several levels or failed
   * below its own level; each finding's `level` is that assertion's, never the check's.
   */
  findings?: Array<{ level: Level; message: string; evidence?: Evidence }>;
  /** For a skipped check: the flag, profile or declaration that would let it decide. */
  howToVerify?: string;
  /** For a skipped declared check: the overlay does not declare the optional design it holds a target to. */
  undeclared?: true;
  /** A failure or warning the --expect file lists (the verdict is unchanged; the exit code does not count it). */
  expected?: { reason?: string; reference?: string; clause?: string };
  title: string;
  durationMs: number;
  /** Requests the run had sent when this check ended (how much it took to get this far). */
  requestsAtEnd: number;
}

/** A point of a clause's domain the run did not exercise, why, and whether this run could have. */
export interface MissingPoint {
  dimension: DomainDimension;
  point: string;
  /** false when this run could not exercise it (a key it does not hold, an operation its document lacks). */
  possible: boolean;
  reason: string;
  howToVerify: string;
}

/** One clause's domain, resolved against the run's document and keys, what the run exercised of it, and the rest. */
export interface DomainCoverage {
  clause: string;
  domain: Partial<Record<DomainDimension, string[]>>;
  exercised: Partial<Record<DomainDimension, string[]>>;
  missing: MissingPoint[];
}

/** A clause a check citing it could not decide, and what would let it decide. */
export interface NotVerified {
  clause: string;
  check: string;
  reason: string;
  howToVerify: string;
  /**
   * false for clauses a conforming target may legitimately never show within the run (conditional in the clause
   * list, a quota beyond the create budget): listed, but they do not make a run incomplete.
   */
  blocking: boolean;
}

/** What the run proved, clause by clause (MUST clauses always; the declared unshown items when an overlay is given). */
export interface Coverage {
  /** Clauses the run decided: every check holding each reached a verdict (those that failed are in `failed` too). */
  verified: string[];
  /** Decided clauses a check holding them failed: shown failed, never verified. */
  failed?: string[];
  /** The one clause count every format shows, computed once when the report is assembled. */
  counts?: ClauseCounts;
  notVerified: NotVerified[];
  /** Verified clauses whose judging checks exercised part of their domain, the rest within this run's reach. */
  partlyVerified?: string[];
  /** Each MUST clause's domain (spec/clauses.yaml), the points this run exercised, and the rest with what would reach it. */
  domains?: DomainCoverage[];
}

/** Each clause the run judged is exactly one of verified (decided and held), failed, or not verified. */
export interface ClauseCounts {
  /** Clauses the run judged: the MUST clauses, and the declared unshown items under an overlay. */
  total: number;
  verified: number;
  failed: number;
  notVerified: number;
  /** The same in words, as every format says it. */
  words: string;
}

/** The clause count (the one the report carries, else computed the same way from its coverage). */
export function clauseCounts(c: Coverage): ClauseCounts {
  if (c.counts) return c.counts;
  const failed = new Set(c.failed ?? []);
  const open = new Set(c.notVerified.map((n) => n.clause).filter((id) => !c.verified.includes(id) && !failed.has(id)));
  const verified = c.verified.filter((id) => !failed.has(id)).length;
  const total = verified + failed.size + open.size;
  const words = `${verified} of ${total} clauses verified${failed.size ? `, ${failed.size} failed` : ''}, ${open.size} not verified`;
  return { total, verified, failed: failed.size, notVerified: open.size, words };
}

/** The clauses not verified, one entry per clause (its checks with the same reason together), and the groups left out. */
interface NotVerifiedByClause {
  clauses: Array<{
    clause: string;
    blocking: boolean;
    reasons: Array<{ checks: string[]; reason: string; howToVerify: string }>;
  }>;
  /** Groups an --only run left out: how many clauses each would have judged. */
  unselected: Array<{ group: string; clauses: number }>;
  /** The clauses only the groups left out would judge, each once. */
  unselectedClauses: number;
}

const UNSELECTED = /^group (\S+) was not selected$/;

export function notVerifiedByClause(c: Coverage | undefined): NotVerifiedByClause {
  const open = (c?.notVerified ?? []).filter((n) => !(c?.failed ?? []).includes(n.clause));
  const left = open.filter((n) => UNSELECTED.test(n.reason));
  const groups = [...new Set(left.map((n) => UNSELECTED.exec(n.reason)![1]!))];
  const unselected = groups.map((group) => ({
    group,
    clauses: new Set(left.filter((n) => n.reason === `group ${group} was not selected`).map((n) => n.clause)).size,
  }));
  const rest = open.filter((n) => !left.includes(n));
  const clauses = [...new Set(rest.map((n) => n.clause))].map((clause) => {
    const of = rest.filter((n) => n.clause === clause);
    const reasons: NotVerifiedByClause['clauses'][number]['reasons'] = [];
    for (const n of of) {
      const same = reasons.find((r) => r.reason === n.reason && r.howToVerify === n.howToVerify);
      if (same) same.checks.push(n.check);
      else reasons.push({ checks: [n.check], reason: n.reason, howToVerify: n.howToVerify });
    }
    return { clause, blocking: of.some((n) => n.blocking), reasons };
  });
  return { clauses, unselected, unselectedClauses: new Set(left.map((n) => n.clause)).size };
}

/**
 * nonconformant: a must or declared assertion failed (whatever else happened); incomplete: nothing failed, but a check
 * could not run, or (certify, --require-complete) a MUST clause was not verified; error: nothing could be judged.
 */
export type Verdict = 'conformant' | 'nonconformant' | 'incomplete' | 'error';

export interface RunReport {
  tool: { name: string; version: string };
  target: { baseUrl: string; embedded: boolean };
  profile: Profile;
  startedAt: string;
  finishedAt: string;
  verdict: Verdict;
  summary: { passed: number; failed: number; skipped: number; warnings: number };
  /** Clause by clause, what the run proved (verified) and what it could not decide, with how to decide it. */
  coverage?: Coverage;
  /** Checks that could not run because of an error (the suite's, or a token the target refused mid-run). */
  errors?: Array<{ check: string; message: string }>;
  /** True when the run holds itself to verifying every MUST clause (--profile certify, --require-complete). */
  requireComplete?: boolean;
  checks: CheckReport[];
  /** Why the run could not start (verdict `error`, no checks): what the target did, and the exchange that shows it. */
  startupFailure?: StartupFailureReport;
  seed: number;
  timeScale: number;
  overlay?: string;
  /** What the run discovered about choices the seed leaves open. */
  observations: Observations;
  /** What the run created (entries, each with how cleanup went) and what of it is still on the target (leftBehind). */
  ledger: LedgerReport;
  /** What the run sent: requests in all, writes among them, tokens issued per key. */
  traffic: {
    requests: number;
    writes: number;
    tokensIssued: Record<string, number>;
    pacedWaitMs: number;
    /** Real milliseconds the run chose to wait, per cause (waits side by side add up), and how many waits. */
    waits?: WaitTotals;
    byEndpoint?: Record<string, number>;
  };
  /** How the run was restricted: no writes (--read-only), TLS not verified (--insecure). */
  safety: { readOnly: boolean; insecure: boolean };
  /** How the run reached its targets, when a CA file, a client certificate, a proxy or --reference-tls was in play. */
  connection?: ConnectionReport;
  /** How to rerun this exact run, as the front end that started it printed it: no secret on it. */
  reproduce: string;
  /** The environment variables (or .env entries) the rerun reads its secrets from. */
  reproduceReads?: string[];
  /** The shell line that sets the token variable of the evidence's curl lines, waiting out a spent issuance budget. */
  tokenCommand?: string;
  /** What the run said it would do to the target before it did it (the quota probe's creates, how many at most). */
  announcements?: Announcement[];
  /** S3 operations the s3 group tried: supported (true), not supported (false) or not determined, with evidence. */
  s3Capabilities?: S3Capability[];
  /** Buckets the s3 group created (named cc-<run id>-…) and whether they were removed at the end. */
  s3Cleanup?: { buckets: string[]; removed: string[]; failed: Array<{ bucket: string; error: string }> };
  /** Each limit probe's requests over time (ms since the probe's first request), for the report's chart; at most ~1000 points each. */
  limitProbes?: LimitProbeTrace[];
  /** Each limit check's own requests (the run's log, by the check that sent them), in target seconds: one line each. */
  limitChecks?: Array<{ check: string; stats: LimitProbeStats }>;
  /** sha256 of the documents the run was judged against: the clause list, the OpenAPI document, and the seed where it is present. */
  digests?: Digests;
  /**
   * --expect: the file, the failures it did not list, and what it lists that no longer fails or warns; notRun: entries
   * whose check was left out (--only) or skipped, judged neither fixed nor failing.
   */
  expectations?: {
    file: string;
    expected: string[];
    unexpected: string[];
    fixed: string[];
    notRun?: string[];
    strict: boolean;
  };
  /** Digests of what the report records (cloud-conformance verify recomputes them), and a signature under --sign. */
  integrity?: Integrity;
}

/** A line the run said before doing what it says (by: the check, or certify). */
export interface Announcement {
  by: string;
  message: string;
  /** Requests the run had sent when it said it: what it announced comes after. */
  afterRequests: number;
}

/** One exchange the report holds, where it sits (check, evidence or finding, position) and its digest. */
export interface EvidenceExchangeAt {
  at: string;
  sha256: string;
}

/**
 * sha256 over RFC 8785 canonical JSON of the report without this block (report), of its checks (checks), and of each
 * exchange it holds; with --sign, an Ed25519 signature over the canonical JSON of this block without the signature.
 */
export interface Integrity {
  algorithm: 'sha256 over RFC 8785 canonical JSON';
  report: string;
  checks: string;
  exchanges: EvidenceExchangeAt[];
  signature?: { algorithm: 'Ed25519'; key: string; value: string };
}

export interface ConnectionReport {
  /** --ca-file: trusted besides Node's own CAs. */
  caFile?: string;
  /** --client-cert: presented to the target (mutual TLS). */
  clientCert?: string;
  /** The embedded targets served HTTPS with a CA made for the run (--reference-tls). */
  referenceTls?: true;
  /** Which way each client went: "direct", or the proxy's URL with any user:password replaced by [REDACTED]. */
  proxy?: { api: string; s3?: string; noProxy?: string };
}

/** The report's account of the run's connection settings; undefined when none was given. */
export function connectionReport(config: RunConfig): ConnectionReport | undefined {
  const c = config.connection;
  const report: ConnectionReport = {};
  if (c?.ca?.file) report.caFile = c.ca.file;
  if (c?.clientCert) report.clientCert = c.clientCert.certFile;
  if (config.referenceTls) report.referenceTls = true;
  if (c?.proxy) {
    const route = (url: string, embedded: boolean | undefined) => {
      const via = embedded ? undefined : proxyFor(url, c.proxy);
      return via ? withoutCredentials(via) : 'direct';
    };
    report.proxy = {
      api: route(config.baseUrl, config.embedded),
      ...(config.s3 ? { s3: route(config.s3.url, config.s3.embedded) } : {}),
      ...(c.proxy.noProxy ? { noProxy: c.proxy.noProxy } : {}),
    };
  }
  return Object.keys(report).length ? report : undefined;
}

export type { S3Capability } from '../outcome/observations.ts';

/**
 * nonconformant whenever a must or declared assertion failed, even if another check could not run (a definite failure
 * is never lost); incomplete when a check errored, or when completeness is required and a MUST clause is not verified.
 */
export function verdictOf(
  checks: readonly CheckReport[],
  opts: { incompleteCoverage: boolean; requireComplete: boolean }
): Verdict {
  if (checks.some((c) => c.status === 'failed')) return 'nonconformant';
  if (checks.some((c) => c.status === 'error')) return 'incomplete';
  if (opts.requireComplete && opts.incompleteCoverage) return 'incomplete';
  return 'conformant';
}

export const EXIT_CODES: Record<Verdict, 0 | 1 | 2 | 3> = { conformant: 0, nonconformant: 1, error: 2, incomplete: 3 };

/** The exit code of a run that left resources on the target it would otherwise have ended 0 or 3 with. */
export const LEFT_BEHIND_EXIT = 4;

export type ExitCode = 0 | 1 | 2 | 3 | typeof LEFT_BEHIND_EXIT;

/**
 * The exit code, once cleanup is known: a run that would end 0 (conformant) or 3 (incomplete) ends 4 when it left
 * resources on the target; 1 (nonconformant) and 2 (could not run) say more and stand.
 */
export function exitCodeOf(report: Pick<RunReport, 'ledger'>, verdictCode: 0 | 1 | 2 | 3): ExitCode {
  const left = Array.isArray(report.ledger) ? 0 : (report.ledger?.leftBehind?.length ?? 0);
  return (verdictCode === 0 || verdictCode === 3) && left > 0 ? LEFT_BEHIND_EXIT : verdictCode;
}

/**
 * Each resource left behind with the curl line that deletes it: the target's base URL, the run's TLS files, and the
 * token as "$CONFORMANCE_TOKEN" ("$CONFORMANCE_TOKEN_B" for the second key's organization), never its value.
 */
export function withDeleteCommands(left: readonly LeftBehind[], baseUrl: string, tls: CurlTls = {}): LeftBehind[] {
  return left.map((l) => {
    if (!l.delete) return l;
    const curl = toCurl(
      {
        method: l.delete.method,
        url: `${baseUrl.replace(/\/+$/, '')}${l.delete.path}`,
        headers: { authorization: '[REDACTED token]' },
      },
      tls
    );
    return {
      ...l,
      deleteCommand: l.owner === 'second' ? curl.replace('$CONFORMANCE_TOKEN"', '$CONFORMANCE_TOKEN_B"') : curl,
    };
  });
}

/** The level a check's result is shown at: a failure or warning at its finding's own level, anything else at the check's. */
export function levelShown(c: Pick<CheckReport, 'status' | 'level' | 'failedAt'>): Level {
  if (c.status === 'warning') return c.failedAt ?? 'should';
  if (c.status === 'failed') return c.failedAt ?? c.level;
  return c.level;
}

/** One failure or warning, as the top of every report lists it: one line each, failures first. */
interface FindingLine {
  check: string;
  status: 'failed' | 'warning';
  /** The level it failed at (levelShown). */
  level: Level;
  clauses: string[];
  message: string;
  /** Further failed assertions beside this one. */
  more: number;
  expected: boolean;
}

/** What every report opens with: the verdict, each failure and warning in a line, and what --expect made of them. */
interface Overview {
  verdict: Verdict;
  findings: FindingLine[];
  /** Under expectations: "all 4 failures expected (expectations: FILE)", or how many were not. */
  expected?: string;
  clauses?: ClauseCounts;
  notVerified: NotVerifiedByClause;
}

export function overviewOf(report: RunReport): Overview {
  const lines = report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warning')
    .map((c): FindingLine => ({
      check: c.id,
      status: c.status as FindingLine['status'],
      level: levelShown(c),
      clauses: c.clauses,
      message: c.message,
      more: Math.max(0, (c.findings?.length ?? 1) - 1),
      expected: !!c.expected,
    }));
  const findings = [...lines.filter((l) => l.status === 'failed'), ...lines.filter((l) => l.status === 'warning')];
  return {
    verdict: report.verdict,
    findings,
    ...(report.expectations ? { expected: expectedWords(findings, report.expectations.file) } : {}),
    ...(report.coverage ? { clauses: clauseCounts(report.coverage) } : {}),
    notVerified: notVerifiedByClause(report.coverage),
  };
}

/** What the expectations file made of the failures and warnings, in one line. */
function expectedWords(findings: readonly FindingLine[], file: string): string {
  const of = (status: FindingLine['status'], noun: string) => {
    const all = findings.filter((f) => f.status === status);
    const expected = all.filter((f) => f.expected);
    const s = all.length === 1 ? '' : 's';
    if (!all.length) return `no ${noun}s`;
    if (expected.length === all.length) return `all ${all.length} ${noun}${s} expected`;
    const unexpected = all.filter((f) => !f.expected).map((f) => f.check);
    return `${expected.length} of ${all.length} ${noun}${s} expected, ${unexpected.length} not: ${unexpected.join(', ')}`;
  };
  return `${of('failed', 'failure')}; ${of('warning', 'warning')} (expectations: ${file})`;
}

export function summarize(checks: readonly CheckReport[]): RunReport['summary'] {
  const count = (s: Status) => checks.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), warnings: count('warning') };
}

/**
 * How to do the run again, as the front end that started it prints it (the engine makes no command line): the rerun
 * line, the variables it reads its secrets from, and the line that sets the token the evidence's curl lines read.
 */
export interface Reproduction {
  rerun: string;
  /** The environment variables (or .env entries) the rerun reads its secrets from: never on its command line. */
  reads: readonly string[];
  tokenCommand?: string;
}

/** The report's lines that do the run again, as the front end made them. */
export function reproduced(r: Reproduction): Pick<RunReport, 'reproduce' | 'reproduceReads' | 'tokenCommand'> {
  return {
    reproduce: r.rerun,
    ...(r.reads.length ? { reproduceReads: [...r.reads] } : {}),
    ...(r.tokenCommand ? { tokenCommand: r.tokenCommand } : {}),
  };
}
