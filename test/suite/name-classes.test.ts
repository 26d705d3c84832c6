// VM names of each class: how a name is made from its classes, and how the list is read for the name sent.
import { describe, expect, it } from 'vitest';
import { howShown, listedAs, nameOf, NAME_CLASSES } from '../../suites/vms/name-classes.ts';
import { VALUE_CLASSES } from '../../src/spec/value-classes.ts';
import { oneAtATime, pairwise } from '../../src/engine/generate/input-classes.ts';

const plain = 'cc-1a2b3c4d-n12';
const holding = (name: string) =>
  Object.entries(VALUE_CLASSES)
    .filter(([k, c]) => k.startsWith('name:') && !c.pair && c.holds(name))
    .map(([k]) => k.slice('name:'.length));

describe('nameOf: a name of the classes asked, and of no other', () => {
  it.each(oneAtATime(NAME_CLASSES, true).map((c) => [Object.keys(c)[0]!, c] as const))('%s alone', (cls, combo) => {
    expect(holding(nameOf(plain, combo))).toEqual([cls]);
  });

  it('every pair of the covering array holds its classes, and a name without the length class stays within 32 characters', () => {
    const rows = pairwise(NAME_CLASSES, () => true);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const name = nameOf(plain, row);
      expect(holding(name).sort()).toEqual(Object.keys(row).sort());
      if (!('past-32-characters' in row)) expect([...name].length).toBeLessThanOrEqual(32);
    }
  });

  it('the plain name holds no class', () => expect(holding(nameOf(plain, {}))).toEqual([]));
});

describe('listedAs: the list read for the name sent', () => {
  const sent = nameOf(plain, { 'mixed-case': 'Mixed', 'beyond-ascii': 'zürich' });
  const listed = (...names: string[]) => names.map((name) => ({ name }));
  it.each([
    ['as sent', sent, { as: 'sent' }],
    ['in NFD (canonically the same letters)', sent.normalize('NFD'), { as: 'sent' }],
    ['lower-cased', sent.toLowerCase(), { as: 'otherwise', shown: sent.toLowerCase() }],
    [
      'its UTF-8 read as Latin-1',
      Buffer.from(sent).toString('latin1'),
      { as: 'otherwise', shown: Buffer.from(sent).toString('latin1') },
    ],
    ['cut to its plain part', plain, { as: 'otherwise', shown: plain }],
    ['another VM entirely', 'cc-1a2b3c4d-n1', undefined],
  ])('%s', (_, name, seen) => expect(listedAs(sent, plain, listed('cc-1a2b3c4d-vm1', name))).toEqual(seen));

  it('says how a name was changed', () => {
    expect(howShown(sent, sent.toLowerCase())).toBe('its case changed');
    expect(howShown('cc-1a2b3c4d-n12-xxxxxxxxxxxxxxxxxxxxxxxxx', 'cc-1a2b3c4d-n12-xxxxxxxxxxxxxxxx')).toBe(
      'cut to 32 of its 41 characters'
    );
    expect(howShown(sent, Buffer.from(sent).toString('latin1'))).toBe('its letters beyond ASCII changed');
  });
});
