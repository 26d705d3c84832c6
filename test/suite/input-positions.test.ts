// Paths of other shapes and the Authorization header spelt otherwise: how each is written, and which classes it holds.
import { describe, expect, it } from 'vitest';
import { isShapedPath, PATH_CLASSES, shaped } from '../../suites/errors/path-shapes.ts';
import { SCHEME_CLASSES, spelt } from '../../suites/auth/scheme-spelling.ts';
import { tagOf, TAG_CLASSES } from '../../suites/vms/tag-value-classes.ts';
import { VALUE_CLASSES } from '../../src/spec/value-classes.ts';
import { oneAtATime, pairwise } from '../../src/engine/generate/input-classes.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';

const singles = (prefix: string, value: string) =>
  Object.entries(VALUE_CLASSES)
    .filter(([k, c]) => k.startsWith(prefix) && !c.pair && c.holds(value))
    .map(([k]) => k.slice(prefix.length));

describe('paths of other shapes', () => {
  it.each([
    [{ 'trailing-slash': 'end' }, '/v1/vms', '/v1/vms/'],
    [{ 'doubled-slash': 'inside' }, '/v1/vms', '/v1//vms'],
    [{ 'doubled-slash': 'leading' }, '/v1/tasks/t-1', '//v1/tasks/t-1'],
    [{ 'upper-case': 'version-and-collection' }, '/v1/tasks/t-1', '/V1/TASKS/t-1'],
    [{ 'trailing-slash': 'end', 'upper-case': 'version-and-collection' }, '/v1/vms', '/V1/VMS/'],
  ])('%j of %s is %s, holding its classes only', (combo, path, want) => {
    expect(shaped(path, combo)).toBe(want);
    expect(singles('path:', want).sort()).toEqual(Object.keys(combo).sort());
  });

  it('every combination sent is a shaped path, the plain ones are not', () => {
    const sent = (path: string) =>
      ({ sentBy: 'errors.path-shapes', request: { url: `http://127.0.0.1:1${path}` } }) as Exchange;
    for (const combo of [...oneAtATime(PATH_CLASSES, true), ...pairwise(PATH_CLASSES, () => true)])
      expect(isShapedPath(sent(shaped('/v1/tasks/t-1', combo))), JSON.stringify(combo)).toBe(true);
    expect(isShapedPath(sent('/v1/vms'))).toBe(false);
    expect(isShapedPath(sent('/v1/tasks/cc-r1-absent-plain'))).toBe(false);
  });
});

describe('the Authorization header spelt otherwise', () => {
  it('writes each spelling, and the recorded header (its token redacted) holds its classes', () => {
    const combos = [...oneAtATime(SCHEME_CLASSES, true), ...pairwise(SCHEME_CLASSES, () => true)];
    expect(combos.map((c) => spelt(c)('T'))).toEqual(['bearer T', 'BEARER T', 'Bearer  T', 'BEARER  T', 'bearer  T']);
    expect(singles('authorization:', spelt({})('[REDACTED]'))).toEqual([]);
    expect(singles('authorization:', spelt({ 'scheme-case': 'bearer', 'two-spaces': '  ' })('[REDACTED]'))).toEqual([
      'scheme-lower-case',
      'two-spaces',
    ]);
  });
});

describe('tag values of each class', () => {
  it.each(oneAtATime(TAG_CLASSES, true).map((c) => [Object.keys(c)[0]!, c] as const))('%s alone', (cls, combo) => {
    const [key, value] = tagOf('1a2b3c4d', 't3', combo);
    expect(key).toBe('cc-t3');
    expect(singles('tag:', `${key}:${value}`)).toEqual([cls]);
  });
});
