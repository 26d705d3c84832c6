// The layers (spec → engine → suites → report → cli) and the engine's rooms, each importing only its own and those
// before it, with no import circle anywhere; docs/layout.md's table of rooms is this list.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, circles, importGraph, importLevels, sourcesUnder, upwardImports, type ImportGraph } from './imports.ts';

/** The layers, lowest first: each may import only itself and those before it. */
const LAYERS = ['src/spec', 'src/engine', 'suites', 'src/report', 'src/cli'] as const;

/** The engine's rooms, lowest first, with what each holds (docs/layout.md shows this table). */
export const ROOMS: ReadonlyArray<{ room: string; holds: string }> = [
  {
    room: 'documented-limits',
    holds:
      "the seed's limits and their arithmetic (windows, Retry-After, limit verdicts), in ES2015 the k6 scripts load too",
  },
  { room: 'config', holds: 'what the run was told: profile, keys, time scale and bounds (RunConfig)' },
  {
    room: 'transport',
    holds:
      'sending, pacing and recording requests: the HTTP client, how it connects (TLS, proxies), exchange records, redaction, Retry-After, announced waits',
  },
  {
    room: 'outcome',
    holds:
      "what a check concludes: levels, statuses, findings, evidence, Unavailable, and the typed observations of the target's choices",
  },
  {
    room: 'identity',
    holds: 'keys and tokens: issuance, renewal, lanes, the authenticated call, and why a first token could not be had',
  },
  { room: 'schema', holds: 'ajv validators of every documented response' },
  { room: 'generate', holds: 'fast-check arbitraries for requests, derived from the document' },
  {
    room: 'target',
    holds:
      "what the run learns about and creates on the target: discovery, the operations it serves (`served-operations.ts`), the run's own objects (`run-objects.ts`), certify's preparation, the ledger, cleanup",
  },
  { room: 'events', holds: 'webhooks and alarms: the receiver, registrations, deliveries and their signatures' },
  {
    room: 'limits',
    holds:
      'the rate-limit probes in two stages (issuance before the checks; reads and writes after them, their inputs taken from the run), their knobs in one place (`probe-knobs.ts`: burst sizes, in flight, widening, spacing, turns), bursts, cross-budget observation, traces and numbers (requests, 429 share, latency, Retry-After, waits) for the report',
  },
  {
    room: 'run',
    holds:
      'a run from start to report: the check definition and context, scheduling, the runner, coverage, the report model',
  },
];

const layerOf = (file: string): number | undefined => {
  const i = LAYERS.findIndex((l) => file.startsWith(`${l}/`));
  return i < 0 ? undefined : i;
};
const roomOf = (file: string): number | undefined => {
  const m = /^src\/engine\/([^/]+)\//.exec(file);
  if (!m) return undefined;
  const i = ROOMS.findIndex((r) => r.room === m[1]);
  return i < 0 ? undefined : i;
};

const files = sourcesUnder('src', 'suites');
const graph = importGraph(files);
const describeEdges = (edges: Array<{ from: string; to: string }>) => edges.map((e) => `${e.from} → ${e.to}`);

describe('the layers and rooms hold', () => {
  it('no import circle anywhere in src/ or suites/', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('no layer imports a later one (spec → engine → suites → report → cli)', () => {
    expect(describeEdges(upwardImports(graph, layerOf))).toEqual([]);
  });

  it('every engine source sits in a listed room, and every room exists', () => {
    const engine = files.filter((f) => f.startsWith('src/engine/'));
    expect(engine.filter((f) => roomOf(f) === undefined)).toEqual([]);
    expect(ROOMS.filter((r) => !engine.some((f) => f.startsWith(`src/engine/${r.room}/`))).map((r) => r.room)).toEqual(
      []
    );
  });

  it('no room imports a later one', () => {
    expect(describeEdges(upwardImports(graph, roomOf))).toEqual([]);
  });

  it('documented-limits imports nothing (k6 loads it), and load/ imports nothing else from src/', () => {
    const shared = files.filter((f) => f.startsWith('src/engine/documented-limits/'));
    expect(shared.every((f) => f.endsWith('.js'))).toBe(true);
    expect(shared.flatMap((f) => graph.get(f)!.filter((d) => !d.startsWith('src/engine/documented-limits/')))).toEqual(
      []
    );
    const load = importGraph(sourcesUnder('load'));
    const intoSrc = [...load].flatMap(([from, deps]) =>
      deps
        .filter((d) => !d.startsWith('load/') && !d.startsWith('src/engine/documented-limits/'))
        .map((to) => ({ from, to }))
    );
    expect(describeEdges(intoSrc)).toEqual([]);
  });

  it('the reference target shares no code with the suite (only the OpenAPI document)', () => {
    const fixtures = importGraph(sourcesUnder('fixtures'));
    const shared = [...fixtures].flatMap(([from, deps]) =>
      deps.filter((d) => !d.startsWith('fixtures/') && !d.startsWith('bin/')).map((to) => ({ from, to }))
    );
    expect(describeEdges(shared)).toEqual([]);
  });

  it('each zoo member shares nothing with the suite, the reference or another member; only scripts/zoo starts them', () => {
    const zoo = importGraph(sourcesUnder('fixtures/zoo'));
    const outside = [...zoo].flatMap(([from, deps]) =>
      deps
        .filter((d) => d.split('/').slice(0, 3).join('/') !== from.split('/').slice(0, 3).join('/'))
        .map((to) => ({ from, to }))
    );
    expect(describeEdges(outside)).toEqual([]);
    const intoZoo = [
      ...importGraph(sourcesUnder('src', 'suites', 'test', 'scripts', 'fixtures/reference', 'fixtures/s3')),
    ].flatMap(([from, deps]) => deps.filter((d) => d.startsWith('fixtures/zoo/')).map((to) => ({ from, to })));
    expect(describeEdges(intoZoo)).toEqual([]);
  });

  it('src/ reaches the embedded targets through src/cli/embedded.ts alone, and only through their entry points', () => {
    const DOOR = 'src/cli/embedded.ts';
    const ENTRY_POINTS = [
      'fixtures/reference/server.ts',
      'fixtures/reference/process.ts',
      'fixtures/reference/tls.ts',
      'fixtures/s3/server.ts',
    ];
    const intoFixtures = [...graph].flatMap(([from, deps]) =>
      deps.filter((d) => d.startsWith('fixtures/')).map((to) => ({ from, to }))
    );
    expect(describeEdges(intoFixtures.filter((e) => e.from !== DOOR || !ENTRY_POINTS.includes(e.to)))).toEqual([]);
    expect(intoFixtures.length).toBeGreaterThan(0);
  });

  it('scripts/ imports nothing from test/ (the runs the gates and the tests share are in scripts/gates/)', () => {
    const scripts = importGraph(sourcesUnder('scripts'));
    const intoTest = [...scripts].flatMap(([from, deps]) =>
      deps.filter((d) => d.startsWith('test/')).map((to) => ({ from, to }))
    );
    expect(describeEdges(intoTest)).toEqual([]);
  });

  it(`the engine is ${importLevels(
    graph,
    files.filter((f) => f.startsWith('src/engine/'))
  )} import levels deep (at most 12)`, () => {
    expect(
      importLevels(
        graph,
        files.filter((f) => f.startsWith('src/engine/'))
      )
    ).toBeLessThanOrEqual(12);
  });
});

describe('docs/layout.md', () => {
  it('walks each question through at most 6 files, each of which exists and holds the function the walk names', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8');
    const walks = [...doc.matchAll(/^- \*\*(.+?)\*\* ([\s\S]+?)(?=\n- \*\*|\n\n|\n*(?![\s\S]))/gm)];
    expect(walks.map((w) => w[1])).toEqual([
      'How is the write limit verified?',
      'Where is the task id found?',
      'What does `--time-scale` reach?',
    ]);
    for (const [, , text] of walks) {
      const steps = [...text!.matchAll(/`((?:src|suites)\/[^`]+\.(?:ts|js))`((?: `\w+`(?: and `\w+`)?)?)/g)];
      const files = [...new Set(steps.map((m) => m[1]!))];
      expect(files.length).toBeLessThanOrEqual(6);
      for (const [, file, named] of steps) {
        const source = readFileSync(path.join(ROOT, file!), 'utf8');
        for (const fn of [...named!.matchAll(/`(\w+)`/g)].map((m) => m[1]!))
          expect(source, `${file} ${fn}`).toMatch(new RegExp(`\\b${fn}\\b`));
      }
    }
  });

  it('lists the rooms in order, one line each, as this test does', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `src\/engine\/([^/`]+)\/` \| (.+?) \|$/gm)].map((m) => ({
      room: m[1],
      holds: m[2],
    }));
    expect(rows).toEqual(ROOMS);
  });
});

describe('the rules can fail', () => {
  const g = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('a circle of two files, of three, and a file importing itself are found', () => {
    expect(circles(g({ a: ['b'], b: ['a'], c: [] }))).toEqual([['a', 'b']]);
    expect(circles(g({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c']]);
    expect(circles(g({ a: ['a'] }))).toEqual([['a']]);
    expect(circles(g({ a: ['b'], b: [] }))).toEqual([]);
  });

  it('an import from a lower layer or room into a higher one is found', () => {
    const sample = g({
      'src/engine/transport/http.ts': ['src/engine/run/runner.ts'],
      'src/engine/run/runner.ts': ['src/engine/transport/http.ts'],
      'src/spec/load.ts': ['suites/index.ts'],
    });
    expect(describeEdges(upwardImports(sample, roomOf))).toEqual([
      'src/engine/transport/http.ts → src/engine/run/runner.ts',
    ]);
    expect(describeEdges(upwardImports(sample, layerOf))).toEqual(['src/spec/load.ts → suites/index.ts']);
  });
});

describe('comments and docs state intent, not history', () => {
  it('no issue or design numbers in src/, suites/, spec/, docs/, the README, the tests, the scripts or our own targets (they resolve nowhere in the repository)', () => {
    const text = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
    const ours = sourcesUnder('fixtures', 'test', 'scripts').filter(
      (f) => !f.startsWith('fixtures/zoo/') && f !== 'test/architecture/layering.test.ts'
    );
    const files = [
      ...sourcesUnder('src', 'suites'),
      ...ours,
      ...['spec', 'docs'].flatMap((d) =>
        readdirSync(path.join(ROOT, d), { recursive: true, encoding: 'utf8' })
          .map((f) => `${d}/${f}`)
          .filter((f) => /\.(md|ya?ml)$/.test(f))
      ),
      'README.md',
    ];
    const found = files.flatMap((f) =>
      [...text(f).matchAll(/\b(?:issues?|designs?) #?\d+/gi)].map((m) => `${f}: ${m[0]}`)
    );
    expect(found).toEqual([]);
  });
});

describe('the documented limits go by one set of names', () => {
  const text = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
  const HOME = 'src/engine/documented-limits/limits.js';

  it('LIMITS and RequestClass are declared once, in documented-limits/limits.js', () => {
    const declared = files.filter((f) =>
      /export (const LIMITS\b|type RequestClass\b)|@typedef \{[^}]*\} RequestClass\b/.test(text(f))
    );
    expect(declared).toEqual([HOME]);
  });

  it('no check of the limits group writes a limit as a number: each reads it from LIMITS', () => {
    const literals = sourcesUnder('suites/limits').flatMap((f) => [...limitLiterals(text(f))].map((m) => `${f}: ${m}`));
    expect(literals).toEqual([]);
  });

  it('a literal limit in code is found; one in a comment, a clause id or a time scale is not', () => {
    expect(limitLiterals("title: 'Writes: 60 per minute'")).toEqual(['60']);
    expect(limitLiterals("// 300 reads\nconst c = ['LIMIT-READ-300']; skip('at --time-scale 60')")).toEqual([]);
  });
});

/** The documented limits (300, 60, 10 per minute) written as numbers in code: comments, clause ids and time scales left out. */
function limitLiterals(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/LIMIT-(READ|WRITE|TOKEN)-\d+/g, '')
    .replace(/--time-scale \d+/g, '');
  return [...code.matchAll(/\b(300|60)\b|\b10 (?:token|issuance)/g)].map((m) => m[0].split(' ')[0]!);
}

describe('doc comments sit on what they describe', () => {
  it('no doc comment in src/ or suites/ is followed by another comment instead of code (JSDoc typedefs stand alone)', () => {
    const orphans = sourcesUnder('src', 'suites').flatMap((f) =>
      orphanedDocComments(readFileSync(path.join(ROOT, f), 'utf8')).map((line) => `${f}:${line}`)
    );
    expect(orphans).toEqual([]);
  });

  it('an orphan is found; a typedef, and a comment on code, are not', () => {
    expect(orphanedDocComments('/** A. */\n/** B. */\nconst b = 1;\n')).toEqual([1]);
    expect(orphanedDocComments('/**\n * @typedef {object} T\n */\n\n/** B. */\nconst b = 1;\n')).toEqual([]);
    expect(orphanedDocComments('/** A. */\nconst a = 1;\n// why\nconst b = 2;\n')).toEqual([]);
  });
});

/** Lines (1-based) of doc comments followed, past blank lines, by another comment rather than by the code they document. */
function orphanedDocComments(source: string): number[] {
  const lines = source.split('\n');
  const found: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('/**')) continue;
    let end = i;
    while (end < lines.length && !lines[end]!.includes('*/')) end++;
    const block = lines.slice(i, end + 1).join('\n');
    let next = end + 1;
    while (next < lines.length && lines[next]!.trim() === '') next++;
    const following = lines[next]?.trim() ?? '';
    if (!/@typedef|@callback/.test(block) && (following.startsWith('/**') || following.startsWith('//')))
      found.push(i + 1);
    i = end;
  }
  return found;
}

describe('checks do not depend on the order they run in', () => {
  it("no file of suites/ reads an observation another file writes (a check's finding goes to the report, not to another check)", () => {
    const foreign = sourcesUnder('suites').flatMap((f) => {
      const source = readFileSync(path.join(ROOT, f), 'utf8');
      return foreignObservationReads(source).map((key) => `${f}: ${key}`);
    });
    expect(foreign).toEqual([]);
  });

  it('a read of a key the same file does not observe is found', () => {
    expect(foreignObservationReads('const t = ctx.observations.taskIdLocation;')).toEqual(['taskIdLocation']);
    expect(foreignObservationReads("ctx.observe('seen', 1); const s = ctx.observations.seen;")).toEqual([]);
  });
});

/** Observation keys a source reads (ctx.observations.key) without observing them itself (ctx.observe('key', ...)). */
function foreignObservationReads(source: string): string[] {
  const written = new Set([...source.matchAll(/ctx\.observe\('(\w+)'/g)].map((m) => m[1]!));
  return [...source.matchAll(/ctx\.observations\.(\w+)/g)].map((m) => m[1]!).filter((k) => !written.has(k));
}
