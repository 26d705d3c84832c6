// The numbers the documentation gives that the code decides: each read out of the sentence that states it and held to
// the constant it describes, so a change to one cannot leave the other behind. (The numbers a run produces, such as a
// quick run's requests and writes, are held against a run in test/suite/waits.test.ts.)
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIMITS, TOKEN_LIFETIME_SECONDS } from '../src/engine/documented-limits/limits.js';
import { HEADROOM } from '../src/engine/transport/pacer.ts';
import { PROBE_KNOBS } from '../src/engine/limits/probe-knobs.ts';
import { resolveRunOptions, runOptions, type RunOptions } from '../src/cli/options.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_RUNS,
  DEFAULT_TASK_TIMEOUT_SECONDS,
} from '../src/cli/defaults.ts';
import { QUICK_LATER_SECONDS } from '../suites/tasks/terminal-stable.ts';
import { DEFAULT_LARGE_OBJECT_BYTES, QUICK_LARGE_OBJECT_BYTES } from '../suites/s3/large-object.ts';

const MiB = 1024 * 1024;

interface Claim {
  /** What the sentence promises, as a test name. */
  what: string;
  file: string;
  /** The sentence, with each number it gives captured. */
  sentence: RegExp;
  /** The numbers the code decides, in the order the sentence gives them. */
  actual: () => number[];
}

const CLAIMS: Claim[] = [
  {
    what: 'the pacer keeps each token under 90% of its budget: 54 writes and 270 reads a minute',
    file: 'docs/limits.md',
    sentence: /stays under (\d+)% of each token's documented budget \((\d+) writes and (\d+) reads a minute\)/,
    actual: () => [
      Math.round((1 - HEADROOM) * 100),
      Math.floor(LIMITS.writes.limit * (1 - HEADROOM)),
      Math.floor(LIMITS.reads.limit * (1 - HEADROOM)),
    ],
  },
  {
    what: 'the documented limits and the pacer, as the safety section gives them',
    file: 'docs/checks-and-levels.md',
    sentence:
      /\((\d+) reads and (\d+) writes per minute per token,\s+(\d+) token issuances per minute per key\): a pacer holds each token under (\d+)% of its budget/,
    actual: () => [LIMITS.reads.limit, LIMITS.writes.limit, LIMITS.tokens.limit, Math.round((1 - HEADROOM) * 100)],
  },
  {
    what: 'quick reads a completed task again 3 s later, and streams a 16 MiB large object, not 64',
    file: 'docs/options.md',
    sentence:
      /a completed task is read again (\d+) s later, not 5 minutes; the S3 large object is (\d+) MiB, not (\d+)\)/,
    actual: () => [QUICK_LATER_SECONDS, QUICK_LARGE_OBJECT_BYTES / MiB, DEFAULT_LARGE_OBJECT_BYTES / MiB],
  },
  {
    what: 'a request has 15 s by default',
    file: 'docs/options.md',
    sentence: /seconds allowed per request \(default (\d+)\)/,
    actual: () => [cliDefaults().requestTimeoutSeconds],
  },
  {
    what: 'a response body is read up to 64 MiB by default',
    file: 'docs/options.md',
    sentence: /largest response body read \(default `(\d+)MiB`/,
    actual: () => [DEFAULT_MAX_BODY_BYTES / MiB],
  },
  {
    what: 'the deadline and the body cap, as the safety section gives them',
    file: 'docs/checks-and-levels.md',
    sentence: /\(`--request-timeout`, default (\d+) s\) and a body cap \(`--max-body-bytes`, (\d+) MiB\)/,
    actual: () => [cliDefaults().requestTimeoutSeconds, DEFAULT_MAX_BODY_BYTES / MiB],
  },
  {
    what: 'a token still works just before its 3600 s',
    file: 'docs/checks-and-levels.md',
    sentence: /a token still works just before (\d+) s/,
    actual: () => [TOKEN_LIFETIME_SECONDS],
  },
  {
    what: "the limit probes' knobs, as docs/limits.md lists them, are PROBE_KNOBS",
    file: 'docs/limits.md',
    sentence:
      /a burst's target\s+time of (\d+) ms, (\d+) in flight near and at most (\d+) far, (\d+) for issuance after the first burst, one at a time to meet a\s+fresh refusal, a slow burst widened (\d+) times and retried once, four times in certify, (\d+) ms of window slack, side by\s+side only where a window lasts (\d+) s or more, the late-count question after (\d+) s, (\d+) reads in the operations spread/,
    actual: () => {
      const k = PROBE_KNOBS;
      return [
        k.burstMs,
        k.inFlight,
        k.maxInFlight,
        k.issuanceInFlight,
        k.slowBurstWidening,
        k.windowSlackMs,
        k.sideBySideMinWindowMs / 1000,
        k.lateCountMs / 1000,
        k.maxSpreadReads,
      ];
    },
  },
];

/** What the CLI runs with when no flag, no environment variable and no .env says otherwise. */
const cliDefaults = (): RunOptions => resolveRunOptions(['--seed', '1'], {}, '/nonexistent-cwd');

/**
 * The option rows of docs/options.md whose "(default N)" the CLI decides: the constant that is the default (src/cli/
 * defaults.ts, defined once) and the option the parser fills with it.
 */
const DEFAULTED_FLAGS: Array<{ flag: string; constant: number; actual: (o: RunOptions) => number }> = [
  { flag: '--runs N', constant: DEFAULT_RUNS, actual: (o) => o.runs },
  { flag: '--task-timeout S', constant: DEFAULT_TASK_TIMEOUT_SECONDS, actual: (o) => o.taskTimeoutSeconds },
  { flag: '--request-timeout S', constant: DEFAULT_REQUEST_TIMEOUT_SECONDS, actual: (o) => o.requestTimeoutSeconds },
];

describe("the defaults docs/options.md gives are the CLI's", () => {
  const doc = readFileSync('docs/options.md', 'utf8');
  it.each(DEFAULTED_FLAGS.map((f) => [f.flag, f] as const))('%s', (_, f) => {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${f.flag}\` |`));
    expect(row, `docs/options.md has no row for ${f.flag}`).toBeDefined();
    const documented = /\(default (\d+)/.exec(row!)?.[1];
    expect(Number(documented)).toBe(f.constant);
    expect(f.actual(cliDefaults())).toBe(f.constant);
    expect(f.actual(runOptions())).toBe(f.constant);
  });
});

describe("numbers the docs give are the code's", () => {
  it.each(CLAIMS.map((c) => [c.what, c] as const))('%s', (_, claim) => {
    const text = readFileSync(claim.file, 'utf8').replace(/\s+/g, ' ');
    const found = claim.sentence.exec(text);
    expect(found, `${claim.file} no longer says it: ${claim.sentence}`).not.toBeNull();
    expect(found!.slice(1).map(Number)).toEqual(claim.actual());
  });

  it('a drifted number is caught', () => {
    const claim = CLAIMS[0]!;
    const drifted = "stays under 90% of each token's documented budget (50 writes and 270 reads a minute)";
    expect(claim.sentence.exec(drifted)!.slice(1).map(Number)).not.toEqual(claim.actual());
  });
});

/** A table of measured times (a "wall" column) in the docs: the lines of the paragraph just before it. */
function measurementTables(text: string): Array<{ header: string; lead: string }> {
  const lines = text.split('\n');
  const tables: Array<{ header: string; lead: string }> = [];
  lines.forEach((line, i) => {
    if (!/^\|.*\bwall\b.*\|$/.test(line) || lines[i - 1]?.startsWith('|')) return;
    let start = i - 1;
    while (start > 0 && lines[start] === '') start--;
    tables.push({ header: line, lead: lines[start] ?? '' });
  });
  return tables;
}

describe('measurements in the docs are records, not promises', () => {
  // A run can check a promise (held above and in test/suite/waits.test.ts); a past run's wall time it cannot, so each
  // table of them says when it was measured and what measures today's.
  const files = [
    'README.md',
    ...readdirSync('docs')
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  it.each(files)('%s introduces each table of wall times as a dated record', (file) => {
    for (const t of measurementTables(readFileSync(file, 'utf8')))
      expect(t.lead, `${file}: ${t.header}`).toMatch(
        /^Record of runs from \d{4}-\d{2}-\d{2}.*not a promise: `npm run bench/
      );
  });

  it('finds the tables, and a table without its record line', () => {
    expect(measurementTables(readFileSync('docs/limits.md', 'utf8')).length).toBeGreaterThanOrEqual(2);
    const [t] = measurementTables(
      'On this machine:\n\n| | wall | peak RSS |\n|---|---|---|\n| before | 20 s | 200 MB |\n'
    );
    expect(t!.lead).not.toMatch(/^Record of runs from/);
  });
});
