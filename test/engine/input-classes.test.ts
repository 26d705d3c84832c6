// Input classes one at a time, then in pairs from a covering array (covertable): every two variants of two classes
// accepted alone meet in some combination; a refused variant is left out; a pair a refused combination hid is named.
import { describe, expect, it } from 'vitest';
import { classesOf, labelOf, oneAtATime, pairwise, uncoveredPairs } from '../../src/engine/generate/input-classes.ts';

const classes = [
  { name: 'a', variants: ['a1', 'a2'] },
  { name: 'b', variants: ['b1', 'b2'] },
  { name: 'c', variants: ['c1', 'c2'] },
  { name: 'd', variants: ['d1'] },
];

/** Every pair of variants of two classes, among those accepted alone. */
function wantedPairs(ok: (cls: string, v: string) => boolean): string[] {
  const out: string[] = [];
  for (const [i, x] of classes.entries())
    for (const y of classes.slice(i + 1))
      for (const vx of x.variants.filter((v) => ok(x.name, v)))
        for (const vy of y.variants.filter((v) => ok(y.name, v))) out.push(`${vx}+${vy}`);
  return out;
}

const coveredPairs = (rows: ReadonlyArray<Record<string, string>>) =>
  new Set(
    rows.flatMap((r) => {
      const vs = classes.map((c) => r[c.name]).filter((v): v is string => v !== undefined);
      return vs.flatMap((x, i) => vs.slice(i + 1).map((y) => `${x}+${y}`));
    })
  );

describe('one class at a time', () => {
  it('takes the first variant of each class, or every variant', () => {
    expect(oneAtATime(classes).map(labelOf)).toEqual(['a', 'b', 'c', 'd']);
    expect(oneAtATime(classes, true)).toHaveLength(7);
    expect(oneAtATime(classes, true).every((c) => classesOf(c).length === 1)).toBe(true);
  });
});

describe('pairs from the covering array', () => {
  it('covers every pair of variants of two classes, in fewer combinations than the product, each varying two classes or more', () => {
    const rows = pairwise(classes, () => true);
    const covered = coveredPairs(rows);
    for (const p of wantedPairs(() => true)) expect(covered, p).toContain(p);
    expect(rows.length).toBeLessThan(3 * 3 * 3 * 2);
    expect(rows.every((r) => classesOf(r).length >= 2)).toBe(true);
  });

  it('leaves out a variant refused alone, and covers the pairs of the rest', () => {
    const ok = (cls: string, v: string) => v !== 'b2' && cls !== 'c';
    const rows = pairwise(classes, ok);
    expect(rows.flatMap((r) => Object.values(r))).not.toContain('b2');
    expect(rows.some((r) => 'c' in r)).toBe(false);
    const covered = coveredPairs(rows);
    for (const p of wantedPairs(ok)) expect(covered, p).toContain(p);
  });

  it('is the same every time (a fixed seed)', () => {
    expect(pairwise(classes, () => true)).toEqual(pairwise(classes, () => true));
  });

  it('has nothing to pair with fewer than two classes accepted', () => {
    expect(pairwise(classes, (cls) => cls === 'a')).toEqual([]);
  });
});

describe('pairs a refused combination hid', () => {
  it('names each pair of classes accepted alone that no accepted combination covers', () => {
    const hidden = uncoveredPairs(classes, new Set(['a', 'b', 'c']), [{ a: 'a1', b: 'b2', d: 'd1' }]);
    expect(hidden.map(labelOf)).toEqual(['a+c', 'b+c']);
    expect(hidden[0]).toEqual({ a: 'a1', c: 'c1' });
  });
});
