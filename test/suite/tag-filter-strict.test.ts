// vms.tag-filter-strict told "the filter is not applied" from "it matches prefixes" by the answer's size: a list of one
// VM carrying the tag, answered whole for a value cut short, was skipped as "not applied". A tag nobody
// carries tells it now: answered with nothing, the filter is applied, and the cut value's answer is a partial match.
import { describe, expect, it } from 'vitest';
import { partialMatchReading } from '../../suites/vms/tag-filter-strict.ts';

describe('partialMatchReading', () => {
  const cases: Array<[string, Parameters<typeof partialMatchReading>[0], ReturnType<typeof partialMatchReading>]> = [
    [
      'one tagged VM, returned for the cut value, and nothing for an absent tag: a partial match',
      { walked: true, wrong: 1, absentReturned: 0 },
      'judged',
    ],
    [
      'every VM returned for the cut value and for an absent tag: the filter is not applied',
      { walked: true, wrong: 130, absentReturned: 130 },
      'not-applied',
    ],
    [
      'the absent tag refused: nothing says the filter is applied',
      { walked: true, wrong: 3, absentReturned: undefined },
      'not-applied',
    ],
    ['no VM without the cut value returned: judged (a pass)', { walked: true, wrong: 0, absentReturned: 0 }, 'judged'],
    ['the cut value could not be walked', { walked: false, wrong: 0, absentReturned: 0 }, 'not-walked'],
  ];
  for (const [what, seen, reading] of cases) it(what, () => expect(partialMatchReading(seen)).toBe(reading));
});
