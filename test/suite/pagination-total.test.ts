import { describe, expect, it } from 'vitest';
import { pagesWithPartialEnd } from '../../suites/pagination/total.ts';

// pagination.total walks several pages and, where the count allows it, ends on a partial page (fault last-page-dropped).
describe('pagination.total picks a page size', () => {
  const cases: Array<[number, number]> = [
    [1, 1],
    [2, 1],
    [3, 2],
    [9, 4],
    [12, 5],
    [30, 11],
    [31, 11],
    [45, 16],
    [300, 100],
    [1000, 100],
  ];
  for (const [total, perPage] of cases) {
    it(`for ${total} VMs: per_page=${perPage}`, () => {
      expect(pagesWithPartialEnd(total)).toBe(perPage);
    });
  }
  it('leaves the last page partial whenever a page size under the count can', () => {
    for (let total = 3; total <= 400; total++) {
      const p = pagesWithPartialEnd(total);
      if (total % p === 0)
        expect(
          Array.from({ length: Math.min(100, total - 1) }, (_, i) => i + 1)
            .filter((q) => q >= Math.ceil(total / 3))
            .every((q) => total % q === 0)
        ).toBe(true);
      expect(p).toBeLessThanOrEqual(100);
    }
  });
});
