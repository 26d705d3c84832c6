// Run options as a user types them: sizes with units, and a clear one-line error for a bad one.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES, resolveRunOptions } from '../../src/cli/options.ts';
import { UsageError } from '../../src/spec/errors.ts';

const parse = (...args: string[]) => resolveRunOptions(args, {}, '/nonexistent-cwd');

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
