// Where an audit answer holds its entries when the overlay does not say (x-audit-entries-field): found in the data,
// the array carrying the run's own requests first, and never a failure on a guess (zoo: node-fastify's audit_logs,
// ruby-webrick's and php-sockets' audit_events).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findEntries } from '../../suites/audit/_search.ts';
import { REFERENCE_OVERLAY, runAgainstReference, statusOf } from '../helpers.ts';

const own = new Set(['/v1/tasks/cc-run-audit-probe']);
const entry = (path: string) => ({ id: path, path, result: 'failure' });

describe('findEntries: the entries of an answer the overlay does not describe', () => {
  it.each([
    ['the one array of objects', { audit_logs: [entry('/x')], total: 1 }, { pointer: '/audit_logs', traced: false }],
    [
      "of several, the one carrying the run's own requests",
      { links: [{ rel: 'next' }], audit_events: [entry('/v1/tasks/cc-run-audit-probe')] },
      { pointer: '/audit_events', traced: true },
    ],
    [
      'one nested a level down',
      { data: { items: [entry('/v1/tasks/cc-run-audit-probe')] } },
      { pointer: '/data/items', traced: true },
    ],
    ['the only array of an empty page', { audit_events: [], total: 0 }, { pointer: '/audit_events', traced: false }],
    ['the answer itself', [entry('/x')], { pointer: '', traced: false }],
  ])('%s', (_, body, want) => expect(findEntries(body, own)).toEqual(want));

  it.each([
    ['several arrays of objects, none with the run’s requests', { a: [entry('/x')], b: [entry('/y')] }],
    [
      'several carrying them',
      { a: [entry('/v1/tasks/cc-run-audit-probe')], b: [entry('/v1/tasks/cc-run-audit-probe')] },
    ],
    ['no array of objects', { names: ['a'], total: 3 }],
  ])('cannot tell: %s', (_, body) => expect(findEntries(body, own)).toHaveProperty('why'));
});

/** The reference overlay without x-audit-entries-field, as the members' overlays leave it out. */
function overlayWithoutEntriesField(): string {
  const text = readFileSync(REFERENCE_OVERLAY, 'utf8');
  const without = text.replace(/^ *x-audit-entries-field: entries\n/m, '');
  expect(without).not.toBe(text);
  const file = join(mkdtempSync(join(tmpdir(), 'cc-audit-entries-')), 'no-entries-field.yaml');
  writeFileSync(file, without);
  return file;
}

describe('audit checks on a log whose entries field is not declared', () => {
  const overlay = overlayWithoutEntriesField();

  it('find the entries under audit_events (and in a JSON export wrapped in an object) and pass', async () => {
    const report = await runAgainstReference({ variants: ['audit-events-envelope'], overlay, only: ['audit'] });
    for (const id of ['audit.logged', 'audit.search', 'audit.export'])
      expect(`${id} ${statusOf(report, id)}`).toBe(`${id} passed`);
  });

  it('still fail a log that leaves out the failed calls, once the entries carried the run’s own requests', async () => {
    const report = await runAgainstReference({
      variants: ['audit-events-envelope'],
      faults: ['audit-missing-failures'],
      overlay,
      only: ['audit'],
    });
    expect(statusOf(report, 'audit.logged')).toBe('failed');
  });
});
