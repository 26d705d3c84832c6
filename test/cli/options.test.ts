// Run options as a user types them: sizes with units, and a clear one-line error for a bad one; the one table of
// options that --help and docs/options.md come from; what --write-expect writes.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  ENV_OF,
  INPUT_NAMES,
  KEY_VARIABLES,
  OTHER_VARIABLES,
  REFERENCE_FLAGS,
  RUN_FLAGS,
  resolveRunOptions,
  runOptions,
  type OptionSpec,
} from '../../src/cli/options.ts';
import { rerunOf, tokenCommandOf } from '../../src/cli/reproduce.ts';
import { RUN_INPUTS } from '../../src/engine/config/config.ts';
import { DEFAULT_MAX_BODY_BYTES, EMBEDDED_TIME_SCALE } from '../../src/cli/defaults.ts';
import { usage } from '../../src/cli/help.ts';
import { shortened, writeExpectations } from '../../src/cli/expect.ts';
import type { RunReport } from '../../src/engine/run/report.ts';
import { UsageError } from '../../src/spec/errors.ts';

const parse = (...args: string[]) => resolveRunOptions(args, {}, '/nonexistent-cwd');

describe('--time-scale', () => {
  it("defaults to the target's own clock, and to 10 against the embedded reference, whose clock is ours", () => {
    expect(parse('--base-url', 'https://api.example.test').timeScale).toBe(1);
    expect(EMBEDDED_TIME_SCALE).toBe(10);
    expect(parse().timeScale).toBe(EMBEDDED_TIME_SCALE);
    // Given, it is what was given: the embedded reference at real time, or a target's scaled clock.
    expect(parse('--time-scale', '1').timeScale).toBe(1);
    expect(parse('--base-url', 'https://api.example.test', '--time-scale', '60').timeScale).toBe(60);
  });

  it('leaves the rerun line as given: the same default applies again', () => {
    expect(rerunOf(parse('--seed', '3')).rerun).toBe('npx cloud-conformance run --profile quick --seed 3');
  });
});

describe('--max-body-bytes', () => {
  it("defaults to 64 MiB, enough for a real deployment's audit export", () => {
    expect(parse().maxBodyBytes).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(DEFAULT_MAX_BODY_BYTES).toBe(64 * 1024 * 1024);
  });

  const sizes: Array<[string, number]> = [
    ['1048576', 1048576],
    ['8MiB', 8 * 1024 * 1024],
    ['8 MiB', 8 * 1024 * 1024],
    ['2GiB', 2 * 1024 ** 3],
    ['500kB', 500_000],
    ['1.5MB', 1_500_000],
    ['64kib', 65536],
  ];
  for (const [raw, bytes] of sizes)
    it(`${raw} is ${bytes} bytes`, () => expect(parse('--max-body-bytes', raw).maxBodyBytes).toBe(bytes));

  for (const raw of ['', 'big', '-5MiB', '10', '8 parsecs', '1e9']) {
    it(`${JSON.stringify(raw)} is refused with a one-line usage error`, () => {
      expect(() => parse(`--max-body-bytes=${raw}`)).toThrow(UsageError);
      expect(() => parse(`--max-body-bytes=${raw}`)).toThrow(
        /^--max-body-bytes must be a size of at least 1024 bytes \(e\.g\. 64MiB\), got /
      );
    });
  }
});

describe('a mistyped flag', () => {
  it('is named with the nearest known flag, and nothing is suggested for one far from all', async () => {
    const { nearestFlag } = await import('../../src/cli/options.ts');
    expect(nearestFlag('profle', ['profile', 'only', 'seed'])).toBe('profile');
    expect(nearestFlag('api-key-read-only', ['api-key-readonly', 'api-key-b'])).toBe('api-key-readonly');
    expect(nearestFlag('zzzzzz', ['profile', 'only'])).toBeUndefined();
  });
});

describe('CONFORMANCE_PROFILE', () => {
  it('is read like every other setting (the flag wins), and an unknown value is refused, never a quick run', () => {
    expect(resolveRunOptions([], { CONFORMANCE_PROFILE: 'full' }, '/nonexistent').profile).toBe('full');
    expect(resolveRunOptions(['--profile', 'quick'], { CONFORMANCE_PROFILE: 'full' }, '/nonexistent').profile).toBe(
      'quick'
    );
    expect(() => resolveRunOptions([], { CONFORMANCE_PROFILE: 'fast' }, '/nonexistent')).toThrow(
      /CONFORMANCE_PROFILE must be quick, full or certify, got "fast"/
    );
  });
});

// One table of options (src/cli/options.ts): parseArgs reads it, --help is printed from it, and docs/options.md is
// held to it here, flag for flag and variable for variable, so neither can leave out what the other lists.
describe('the options table, --help and docs/options.md', () => {
  const doc = readFileSync('docs/options.md', 'utf8');
  const help = usage();
  const tables = { run: RUN_FLAGS, reference: REFERENCE_FLAGS } as Record<string, Record<string, OptionSpec>>;
  const variables = [...Object.values(ENV_OF), ...OTHER_VARIABLES.flatMap((v) => v.names)];

  /** The flags named in the first column of the tables of the doc's sections whose headings match. */
  function documentedFlags(section: RegExp): Set<string> {
    const flags = new Set<string>();
    for (const part of doc.split(/^## /m).filter((p) => section.test(p.split('\n')[0]!)))
      for (const row of part.split('\n').filter((l) => l.startsWith('| `-')))
        for (const m of row.split(' | ')[0]!.matchAll(/`--?([a-z0-9-]+)/g)) flags.add(m[1]!);
    return flags;
  }

  it('docs/options.md documents every flag of run and reference, and no flag the CLI does not take', () => {
    const short = (t: Record<string, OptionSpec>) => Object.values(t).flatMap((o) => (o.short ? [o.short] : []));
    const run = documentedFlags(/^(`run`|Object storage options)/);
    expect([...run].sort()).toEqual([...Object.keys(RUN_FLAGS), ...short(RUN_FLAGS)].sort());
    const reference = documentedFlags(/^`reference`/);
    expect([...reference].sort()).toEqual([...Object.keys(REFERENCE_FLAGS), ...short(REFERENCE_FLAGS)].sort());
  });

  it("docs/options.md's table of settings from the environment is the table's, variable for flag", () => {
    const rows = doc.split('\n').flatMap((l) => {
      const m = /^\| `--([a-z0-9-]+)` \| `([A-Z_0-9]+)`/.exec(l);
      return m ? [[m[1]!, m[2]!] as const] : [];
    });
    expect(Object.fromEntries(rows)).toEqual(ENV_OF);
  });

  it('--help prints every flag of the table, with its value and the variable that also sets it', () => {
    for (const [command, table] of Object.entries(tables))
      for (const [flag, o] of Object.entries(table)) {
        const line = `--${flag}${o.value ? ` ${o.value}` : ''}`;
        expect(help, `${command} ${line}`).toMatch(
          new RegExp(`^  (-[a-z], )?${line.replace(/[|.]/g, '\\$&')}( |$)`, 'm')
        );
      }
    for (const name of variables) expect(help, name).toContain(name);
    expect(help.split('\n').filter((l) => l.length > 118)).toEqual([]);
  });

  it('every environment variable the CLI reads is in the table, so in --help and docs/options.md', () => {
    // The CLI's own sources and its launcher; CONFORMANCE_TOKEN is the shell's (the printed token line sets it).
    const sources = ['bin/cloud-conformance.js', ...listTs('src/cli'), ...listTs('src/spec')];
    const read = new Set(
      sources.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bCONFORMANCE_[A-Z0-9_]+/g)].map((m) => m[0]))
    );
    read.delete('CONFORMANCE_TOKEN');
    for (const name of [...read, 'NO_COLOR', 'FORCE_COLOR', 'NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'NO_PROXY'])
      expect(variables, name).toContain(name);
    for (const name of variables) expect(doc, name).toContain(name);
  });
});

function listTs(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
}

// --write-expect's reasons quote each failure's message: a long one is cut after a whole word, with an ellipsis (it
// used to end mid-word at 200 characters).
describe('--write-expect reasons', () => {
  const message = `malformed JSON answered ${Array.from({ length: 12 }, (_, i) => `POST /v1/vms/vm-${i}/backups → 500`).join('; ')}; expected a 4xx`;

  it('keeps a short message whole, and cuts a long one at a word boundary, marked with an ellipsis', () => {
    expect(shortened('fails: short', 200)).toBe('fails: short');
    const cut = shortened(message, 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.endsWith('…')).toBe(true);
    const kept = cut.slice(0, -1);
    expect(message.startsWith(kept)).toBe(true);
    // The next character of the message after what is kept is a space or punctuation: no word is cut.
    expect(message.slice(kept.length)).toMatch(/^[\s;,]/);
    expect(kept).not.toMatch(/[\s;,]$/);
    // One word longer than the room is cut where it must be.
    expect(shortened('x'.repeat(300), 200)).toBe(`${'x'.repeat(199)}…`);
  });

  it('writes the cut reason into the file', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cc-write-expect-')), 'expect.yaml');
    const report = {
      startedAt: '2026-01-01T00:00:00.000Z',
      verdict: 'nonconformant',
      checks: [{ id: 'errors.malformed-json', status: 'failed', message, clauses: ['SVC-JSON'] }],
    } as unknown as RunReport;
    writeExpectations(report, file);
    const [entry] = parseYaml(readFileSync(file, 'utf8')) as Array<{ check: string; reason: string }>;
    expect(entry).toEqual({ check: 'errors.malformed-json', reason: `fails: ${shortened(message, 200)}` });
  });
});

// The CLI parses once into a frozen value, and remembers what the user gave, and whence; the rerun line is made from
// that alone and carries no secret, so `ps` shows none and keys in .env only still rerun.
describe('what the user gave, and the lines that do the run again', () => {
  const KEYS = {
    CONFORMANCE_API_KEY: 'key-primary-0123456789',
    CONFORMANCE_API_KEY_B: 'key-second-0123456789',
    CONFORMANCE_S3_SECRET_KEY: 's3-secret-0123456789',
  };
  const withDotenv = (lines: Record<string, string>): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-given-'));
    writeFileSync(
      path.join(dir, '.env'),
      Object.entries(lines)
        .map(([k, v]) => `${k}=${v}\n`)
        .join('')
    );
    return dir;
  };

  it('is frozen through and through: nothing downstream can write to it', () => {
    const opts = resolveRunOptions(['--only', 'errors', '--report', 'json:r.json'], {}, '/nonexistent-cwd');
    expect(Object.isFrozen(opts)).toBe(true);
    expect(Object.isFrozen(opts.given)).toBe(true);
    expect(Object.isFrozen(opts.only)).toBe(true);
    expect(Object.isFrozen(opts.reports[0])).toBe(true);
    expect(() => ((opts as { readOnly: boolean }).readOnly = true)).toThrow(TypeError);
    expect(Object.isFrozen(runOptions({ only: ['vms'] }).only)).toBe(true);
  });

  it('records each setting once, from the flag, else the environment, else .env (an empty variable hides .env)', () => {
    const cwd = withDotenv({ ...KEYS, CONFORMANCE_IMAGE: 'from-dotenv', CONFORMANCE_SUBNET_ID: 'subnet-dotenv' });
    const opts = resolveRunOptions(
      ['--image', 'from-flag', '--read-only'],
      { CONFORMANCE_BASE_URL: 'https://api.example.test', CONFORMANCE_SUBNET_ID: '' },
      cwd
    );
    const by = Object.fromEntries(opts.given.map((g) => [g.flag, g]));
    expect(by['image']).toEqual({ flag: 'image', value: 'from-flag', from: 'flag' });
    expect(by['base-url']).toEqual({ flag: 'base-url', value: 'https://api.example.test', from: 'environment' });
    expect(by['api-key']).toEqual({ flag: 'api-key', value: KEYS.CONFORMANCE_API_KEY, from: '.env' });
    expect(by['read-only']).toEqual({ flag: 'read-only', value: true, from: 'flag' });
    // The run reads no subnet (the empty variable wins over .env), so none was given.
    expect(opts.subnetId).toBeUndefined();
    expect(by['subnet-id']).toBeUndefined();
  });

  it('the rerun line names no key and no key flag; it says which variables it reads them from', () => {
    const cwd = withDotenv(KEYS);
    const opts = resolveRunOptions(
      ['--base-url', 'https://api.example.test', '--api-key-readonly', 'key-readonly-by-flag', '--time-scale', '60'],
      { CONFORMANCE_S3_URL: 'https://s3.example.test', CONFORMANCE_S3_ACCESS_KEY: 'AKIAEXAMPLE' },
      cwd
    );
    const { rerun, reads } = rerunOf(opts);
    for (const secret of [...Object.values(KEYS), 'key-readonly-by-flag', 'AKIAEXAMPLE'])
      expect(rerun).not.toContain(secret);
    expect(rerun).not.toMatch(/--api-key|--s3-access-key|--s3-secret-key|--expired-token|\$/);
    expect(reads).toEqual([
      'CONFORMANCE_API_KEY',
      'CONFORMANCE_API_KEY_B',
      'CONFORMANCE_API_KEY_READONLY',
      'CONFORMANCE_S3_ACCESS_KEY',
      'CONFORMANCE_S3_SECRET_KEY',
    ]);
    expect(rerun).toBe(
      `npx cloud-conformance run --profile quick --seed ${opts.seed} --base-url https://api.example.test --time-scale 60 --s3-url https://s3.example.test`
    );
  });

  it('the rerun line carries what the user gave, as given, and leaves out where the run writes and how it shows it', () => {
    const opts = resolveRunOptions(
      ['--seed', '7', '--only', 'errors,vms', '--runs', '10', '--image', "it's", '--quiet', '--report', 'json:r.json'],
      {},
      '/nonexistent-cwd'
    );
    // --runs 10 is the default, but the user gave it: the line is what they typed, not what differs from a default.
    expect(rerunOf(opts)).toEqual({
      rerun: `npx cloud-conformance run --profile quick --seed 7 --image 'it'\\''s' --only errors,vms --runs 10`,
      reads: [],
    });
  });

  it('the token line reads the key as the run did, sets the variable only when a token came, and names no secret', () => {
    const cwd = withDotenv(KEYS);
    const opts = resolveRunOptions(['--time-scale', '60', '--ca-file', 'ca.pem', '--only', 'errors'], {}, cwd);
    const line = tokenCommandOf(opts, 'https://api.example.test');
    expect(line).toBe(
      'CONFORMANCE_TOKEN="$(npx cloud-conformance token --base-url https://api.example.test --time-scale 60 --ca-file ca.pem)" && export CONFORMANCE_TOKEN'
    );
    for (const secret of Object.values(KEYS)) expect(line).not.toContain(secret);
  });

  it("names every run input by a flag of the table, and every key by its flag's variable", () => {
    for (const input of RUN_INPUTS) expect(INPUT_NAMES[input], input).toMatch(/^--[a-z0-9-]+$/);
    for (const [input, flag] of Object.entries(INPUT_NAMES))
      expect((RUN_FLAGS as Record<string, OptionSpec>)[flag.slice(2)]!.input, flag).toBe(input);
    expect(KEY_VARIABLES).toEqual({
      primary: 'CONFORMANCE_API_KEY',
      second: 'CONFORMANCE_API_KEY_B',
      readonly: 'CONFORMANCE_API_KEY_READONLY',
      revocable: 'CONFORMANCE_API_KEY_REVOCABLE',
    });
  });
});
