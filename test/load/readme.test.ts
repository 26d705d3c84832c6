// load/README.md is what operators follow: its commands must keep k6 from sending its usage report (k6 reads that
// setting only from its command line, environment or config), give each k6 process on one host its own API address,
// and state the minimum k6 version the scripts check. Its CI examples pin only versions the scripts were run on, run
// them from where npm installs the suite, keep keys off the command line, and wait for the conformance templates' jobs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acorn from 'acorn';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { MIN_K6_VERSION, parseSegment } from '../../load/lib/decisions.js';

const readme = readFileSync(new URL('../../load/README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));

describe('load/README.md', () => {
  it('every k6 run in its examples passes --no-usage-report', () => {
    const runs = blocks.flatMap((b) => b.text.split('\n').filter((l) => /\bk6 run\b/.test(l)));
    expect(runs.length).toBeGreaterThanOrEqual(8);
    expect(runs.filter((l) => !l.includes('--no-usage-report'))).toEqual([]);
  });

  it('the CI and k6-operator examples also set K6_NO_USAGE_REPORT, and the TestRun passes the flag to its runners', () => {
    const yaml = blocks.filter((b) => b.lang === 'yaml');
    expect(yaml.length).toBeGreaterThanOrEqual(3);
    for (const b of yaml) expect(b.text).toMatch(/K6_NO_USAGE_REPORT/);
    expect(yaml.find((b) => b.text.includes('kind: TestRun'))!.text).toMatch(/arguments: --no-usage-report/);
  });

  it('states the minimum k6 version that the scripts check at load time', () => {
    expect(readme).toContain(`**The scripts need k6 v${MIN_K6_VERSION} or later.**`);
    expect(readme).toMatch(/ES2015 modules/);
  });

  it('creates the report directory before every run (k6 does not create it)', () => {
    for (const b of blocks.filter((x) => x.text.includes('k6 run') && !x.text.includes('kind: TestRun')))
      expect(b.text).toMatch(/mkdir -p k6-out/);
  });

  it('k6 processes run side by side on one host each have their own --address (k6 serves its API on localhost:6565 by default) and report directory', () => {
    const sideBySide = blocks.filter((b) => b.text.split('\n').filter((l) => /\bk6 run\b.*&\s*$/.test(l)).length > 1);
    expect(sideBySide.length).toBeGreaterThanOrEqual(1);
    for (const b of sideBySide) {
      const runs = b.text.split('\n').filter((l) => /\bk6 run\b/.test(l));
      const addresses = runs.map((l) => /--address (\S+)/.exec(l)?.[1]);
      expect(
        addresses.every((a) => a !== undefined && !/:6565$/.test(a)),
        runs.join('\n')
      ).toBe(true);
      expect(new Set(addresses).size).toBe(runs.length);
      const outDirs = runs.map((l) => /CONFORMANCE_OUT_DIR=(\S+)/.exec(l)?.[1]);
      expect(new Set(outDirs).size).toBe(runs.length);
      for (const dir of outDirs) expect(b.text).toMatch(new RegExp(`mkdir -p .*${dir}`));
      // One process per segment of the sequence, and CONFORMANCE_SEGMENTS says how many.
      const segments = runs.map((l) =>
        parseSegment(/--execution-segment (\S+)/.exec(l)?.[1], /--execution-segment-sequence (\S+)/.exec(l)?.[1])
      );
      expect(segments.map((x) => x.index)).toEqual(runs.map((_, i) => i));
      expect(segments.every((x) => x.count === runs.length)).toBe(true);
      expect(b.text).toContain(`CONFORMANCE_SEGMENTS=${runs.length}`);
    }
  });

  // Only these were run (built from source at their tags; "k6 versions" says so). Add one here only after running it.
  const TRIED = ['0.38.0', '0.48.0'];

  it('pins k6 only to versions the scripts were run on, and says which those are', () => {
    const pins = [...readme.matchAll(/k6-version: '([^']+)'/g), ...readme.matchAll(/grafana\/k6:(\S+)/g)].map(
      (m) => m[1]!
    );
    expect(pins.length).toBeGreaterThanOrEqual(3);
    expect(pins.filter((v) => !TRIED.includes(v))).toEqual([]);
    expect(readme).toContain(`run by hand with k6 v${TRIED[0]} and v${TRIED[1]}`);
  });

  it('puts no key on a k6 command line: keys come from the environment', () => {
    const commands = blocks.flatMap((b) => b.text.split('\n').filter((l) => /\bk6 (run|archive)\b/.test(l)));
    expect(commands.length).toBeGreaterThanOrEqual(8);
    expect(commands.filter((l) => /KEY|SECRET|TOKEN/.test(l))).toEqual([]);
    expect(blocks.filter((b) => /-e CONFORMANCE_\w*KEY/.test(b.text)).map((b) => b.text)).toEqual([]);
  });

  it('the CI examples run the scripts from where npm installs the suite, and wait for the conformance templates', () => {
    const ci = blocks.filter(
      (b) => b.lang === 'yaml' && /\bk6 run\b/.test(b.text) && !b.text.includes('kind: TestRun')
    );
    expect(ci.length).toBe(2);
    for (const b of ci) {
      const scripts = [...b.text.matchAll(/\bk6 run\b.* (\S+\.js)$/gm)].map((m) => m[1]!);
      expect(scripts.length).toBe(2);
      for (const script of scripts) expect(script).toMatch(/^node_modules\/cloud-api-conformance\/load\/[a-z-]+\.js$/);
    }
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const group = (file: string) => readFileSync(path.join(root, 'ci-templates', file), 'utf8');
    const github = parseYaml(ci.find((b) => b.text.includes('runs-on'))!.text) as { concurrency: unknown };
    expect(github.concurrency).toEqual(
      (parseYaml(group('github-actions.yml')) as { concurrency: unknown }).concurrency
    );
    const gitlab = parseYaml(ci.find((b) => b.text.includes('resource_group'))!.text) as Record<
      string,
      { resource_group?: string }
    >;
    const template = parseYaml(group('gitlab-ci.yml')) as Record<string, { resource_group?: string }>;
    expect(gitlab['k6-conformance']!.resource_group).toBe(template['conformance']!.resource_group);
  });

  it('npm pack ships the scripts and every module they import, under the name npm installs them', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).name).toBe('cloud-api-conformance');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--silent'], { cwd: root, encoding: 'utf8' })
    ) as Array<{ files: Array<{ path: string }> }>;
    const shipped = new Set(packed[0]!.files.map((f) => f.path));
    // The module graph from each script, k6's own modules (k6, k6/http, ...) left out.
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const ast = acorn.parse(readFileSync(path.join(root, file), 'utf8'), { ecmaVersion: 2020, sourceType: 'module' });
      for (const node of ast.body)
        if (
          (node.type === 'ImportDeclaration' ||
            node.type === 'ExportNamedDeclaration' ||
            node.type === 'ExportAllDeclaration') &&
          node.source
        ) {
          const spec = String(node.source.value);
          if (spec.startsWith('.')) visit(path.posix.join(path.posix.dirname(file), spec));
        }
    };
    visit('load/rate-limits.js');
    visit('load/pagination.js');
    expect(seen.size).toBeGreaterThan(6);
    expect([...seen].filter((f) => !shipped.has(f))).toEqual([]);
  }, 60_000);
});
