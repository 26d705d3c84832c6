// --expect FILE, --write-expect FILE, --strict-expect: known failures and warnings, as web-platform-tests'
// metadata and linters' baselines keep them. The verdict stays what the run proved; the exit code answers whether
// anything got worse.
import { readFileSync, writeFileSync } from 'node:fs';
import { LineCounter, parseDocument, isMap, isSeq, stringify, type Node } from 'yaml';
import { EXIT_CODES, verdictOf, type CheckReport, type RunReport } from '../engine/run/report.ts';
import { isIncomplete } from '../engine/run/coverage.ts';
import { UsageError } from '../spec/errors.ts';

/** One entry of an expectations file. */
interface Expectation {
  check: string;
  clause?: string;
  reason?: string;
  reference?: string;
  /** The line of the file it starts on, for messages. */
  line: number;
}

const FIELDS = new Set(['check', 'clause', 'reason', 'reference']);

/** Reads an expectations file: a YAML list of {check, clause?, reason?, reference?}. Bad input names its line (exit 2). */
export function loadExpectations(
  file: string,
  checkIds: ReadonlySet<string>,
  clauseIds: ReadonlySet<string>
): Expectation[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--expect ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
    );
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineOf = (n: Node | null | undefined) => (n?.range ? lines.linePos(n.range[0]).line : 1);
  if (doc.errors.length)
    throw new UsageError(
      `--expect ${file}:${lines.linePos(doc.errors[0]!.pos[0]).line}: not YAML (${doc.errors[0]!.message.split('\n')[0]})`
    );
  const root = doc.contents;
  if (root === null) return [];
  if (!isSeq(root))
    throw new UsageError(`--expect ${file}:${lineOf(root as Node)}: expected a list of entries (- check: <check id>)`);
  return root.items.map((item) => {
    const line = lineOf(item as Node);
    if (!isMap(item))
      throw new UsageError(
        `--expect ${file}:${line}: an entry must be a mapping with check (and optionally clause, reason, reference)`
      );
    const e = item.toJSON() as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !FIELDS.has(k));
    if (unknown.length)
      throw new UsageError(
        `--expect ${file}:${line}: unknown field ${unknown[0]} (fields: check, clause, reason, reference)`
      );
    if (typeof e['check'] !== 'string') throw new UsageError(`--expect ${file}:${line}: check must be a check id`);
    if (!checkIds.has(e['check'])) throw new UsageError(`--expect ${file}:${line}: unknown check id ${e['check']}`);
    if (e['clause'] !== undefined && (typeof e['clause'] !== 'string' || !clauseIds.has(e['clause'])))
      throw new UsageError(`--expect ${file}:${line}: unknown clause id ${String(e['clause'])}`);
    for (const k of ['reason', 'reference'] as const)
      if (e[k] !== undefined && typeof e[k] !== 'string')
        throw new UsageError(`--expect ${file}:${line}: ${k} must be a string`);
    return {
      check: e['check'],
      clause: e['clause'] as string | undefined,
      reason: e['reason'] as string | undefined,
      reference: e['reference'] as string | undefined,
      line,
    };
  });
}

const failingOrWarning = (c: CheckReport) => c.status === 'failed' || c.status === 'warning';
const matches = (e: Expectation, c: CheckReport) =>
  e.check === c.id && (e.clause === undefined || c.clauses.includes(e.clause));

/**
 * A new report with each expected failure and warning marked (every format shows it), and the exit code: what the
 * verdict would be without the expected failures (0, or 3 when the run is incomplete for another reason), 1 for a
 * failure the file does not list, and 1 under --strict-expect when an entry no longer fails or warns.
 */
export function applyExpectations(
  judged: RunReport,
  file: string,
  expectations: readonly Expectation[],
  strict: boolean
): { report: RunReport; exitCode: 0 | 1 | 2 | 3 } {
  const checks = judged.checks.map((c): CheckReport => {
    const e = failingOrWarning(c) ? expectations.find((x) => matches(x, c)) : undefined;
    if (!e) return c;
    return {
      ...c,
      expected: {
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.reference ? { reference: e.reference } : {}),
        ...(e.clause ? { clause: e.clause } : {}),
      },
    };
  });
  const unexpected = checks.filter((c) => c.status === 'failed' && !c.expected).map((c) => c.id);
  // An entry is fixed only when its check ran and no longer fails or warns; a check left out (--only) or skipped says
  // nothing about it either way.
  const ran = (e: Expectation) => checks.some((c) => c.id === e.check && c.status !== 'skipped');
  const named = (e: Expectation) => `${e.check}${e.clause ? ` (${e.clause})` : ''}`;
  const fixed = expectations
    .filter((e) => ran(e) && !checks.some((c) => failingOrWarning(c) && matches(e, c)))
    .map(named);
  const notRun = expectations.filter((e) => !ran(e)).map(named);
  const report: RunReport = {
    ...judged,
    checks,
    expectations: {
      file,
      expected: checks.filter((c) => c.expected).map((c) => c.id),
      unexpected,
      fixed,
      notRun,
      strict,
    },
  };
  return { report, exitCode: expectedExitCode(report, unexpected.length > 0, strict && fixed.length > 0) };
}

/** The exit code once the expected failures are set aside. */
function expectedExitCode(report: RunReport, unexpected: boolean, strictFixed: boolean): 0 | 1 | 2 | 3 {
  if (report.verdict === 'error') return 2;
  if (unexpected || strictFixed) return 1;
  const rest = report.checks.map((c) =>
    c.expected && c.status === 'failed' ? { ...c, status: 'passed' as const } : c
  );
  return EXIT_CODES[
    verdictOf(rest, {
      incompleteCoverage: report.coverage ? isIncomplete(report.coverage) : false,
      requireComplete: report.requireComplete === true,
    })
  ];
}

/** What the terminal says about the file's entries that no longer fail or did not run, after the summary. */
export function expectationLines(report: RunReport): string[] {
  const x = report.expectations;
  if (!x) return [];
  // What the file made of the failures ("all 4 failures expected") is under the verdict (report/terminal.ts).
  const lines: string[] = [];
  if (x.fixed.length)
    lines.push(
      `${x.strict ? 'FIXED (--strict-expect: remove from the file)' : 'fixed (no longer failing or warning; remove from the file)'}: ${x.fixed.join(', ')}`
    );
  if (x.notRun?.length) lines.push(`not run (left out or skipped; kept in the file): ${x.notRun.join(', ')}`);
  return lines;
}

/** --write-expect FILE: the run's failures and warnings as an expectations file, with a reason to fill in. */
export function writeExpectations(report: RunReport, file: string): number {
  const entries = report.checks.filter(failingOrWarning).map((c) => ({
    check: c.id,
    reason: c.expected?.reason ?? `${c.status === 'failed' ? 'fails' : 'warns'}: ${shortened(c.message, 200)}`,
    ...(c.expected?.reference ? { reference: c.expected.reference } : {}),
  }));
  const head = `# cloud-conformance expectations, written from run ${report.startedAt} (${report.verdict}): known failures and warnings.\n# Fields: check (a check id), clause (optional), reason, reference (a ticket URL). Use with --expect.\n`;
  writeFileSync(file, head + (entries.length ? stringify(entries) : '[]\n'));
  return entries.length;
}

/** At most `max` characters, cut after a whole word and marked with an ellipsis when cut. */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 1;
  const cut = text.slice(0, room);
  // The last space of the cut, unless the text breaks right after it; a single long word is cut where it must be.
  const end = /\s/.test(text[room]!) ? room : cut.lastIndexOf(' ');
  return `${(end > room / 2 ? cut.slice(0, end) : cut).replace(/[\s,;:([{]+$/, '')}…`;
}
