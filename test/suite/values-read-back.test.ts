// Values read back: how what a create sent is judged against what an answer shows under the same name.
// A dropped value fails; a value ignored behind a default that matches is never called verified; a target's own sizes
// (rounded up, larger requests larger) pass.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { compare, judgeField, type Reading } from '../../suites/read-back.ts';
import { backupIdOf } from '../../suites/own-backup.ts';
import { longDescription, namedVm } from '../../suites/backups/values-read-back.ts';

const ex = {
  seq: 0,
  sentBy: 't',
  startedAt: '',
  durationMs: 0,
  request: { method: 'GET', url: 'http://t/v1/vms', headers: {} },
} as Exchange;
const reading = (sent: string | number, shown: unknown, of = 'vm'): Reading => ({
  of,
  sent,
  shown,
  view: { source: 'its element in GET /v1/vms', record: {}, ex },
});

describe('compare: one value sent, one shown', () => {
  it.each([
    ['integer', 4, 4, 'equal'],
    ['integer', 4, '4', 'equal'],
    ['integer', 4, 8, 'larger'],
    ['integer', 4, 1, 'smaller'],
    ['integer', 4, null, 'other'],
    ['integer', 4, undefined, 'absent'],
    ['integer', 4, { value: 4, unit: 'GB' }, 'equal'],
    ['integer', 4, { value: 4096, unit: 'MB' }, 'not-comparable'],
    ['string', 'ubuntu', 'ubuntu', 'equal'],
    ['string', 'ubuntu', { id: 'img-1', name: 'ubuntu' }, 'equal'],
    ['string', 'ubuntu', 'debian', 'other'],
  ] as const)('%s %j shown as %j: %s', (type, sent, shown, result) => expect(compare(type, sent, shown)).toBe(result));
});

describe('judgeField: every reading of one field', () => {
  it.each([
    ['two values shown as sent', 'integer', [reading(1, 1, 'a'), reading(2, 2, 'b')], 'verified'],
    ['one value shown as sent: it may be a default that matches', 'integer', [reading(1, 1, 'a')], 'one-value'],
    ['a sent size dropped to the default', 'integer', [reading(1, 1, 'a'), reading(4, 1, 'b')], 'failed'],
    ['a string replaced', 'string', [reading('x', '', 'a')], 'failed'],
    ["the target's own sizes, larger requests larger", 'integer', [reading(3, 4, 'a'), reading(5, 8, 'b')], 'rounded'],
    [
      'two requests shown as one larger size: rounded, or ignored behind it',
      'integer',
      [reading(1, 2, 'a'), reading(2, 2, 'b')],
      'ambiguous',
    ],
    ['a larger request shown smaller', 'integer', [reading(2, 8, 'a'), reading(4, 4, 'b')], 'failed'],
    ['shown nowhere', 'integer', [reading(1, undefined)], 'not-shown'],
  ] as const)('%s: %s', (_, type, readings, status) =>
    expect(judgeField('f', type, [...readings]).status).toBe(status)
  );
});

describe("a backup's id in its start answer", () => {
  it.each([
    [{ backup_id: 'bk-1', task_id: 't' }, 'bk-1'],
    [{ backupId: 'bk-2' }, 'bk-2'],
    [{ backup: { id: 'bk-3' }, operation: { id: 'op' } }, 'bk-3'],
    [{ task_id: 't' }, undefined],
  ])('%j: %s', (json, id) => expect(backupIdOf(json)).toBe(id));
});

describe('the second backup description: other classes than the first', () => {
  it('is 120 characters, with quotes, commas, a semicolon and letters beyond ASCII', () => {
    const d = longDescription('r1');
    expect([...d].length).toBe(120);
    expect(d).toMatch(/"[^"]+"/);
    expect(d).toMatch(/,.*;/);
    expect(d).toMatch(/[^\x00-\x7f]/);
  });
});

describe("namedVm: the VM a backup's answer names", () => {
  it.each([
    [{ vm_id: 'vm-1' }, 'vm-1'],
    [{ vmId: 'vm-1' }, 'vm-1'],
    [{ source_vm_id: 'vm-1' }, 'vm-1'],
    [{ vm: 'vms/vm-1' }, 'vms/vm-1'],
    [{ vm: { id: 'vm-1', name: 'a' } }, 'vm-1'],
    [{ id: 'b-1', description: 'x' }, undefined],
  ])('%j → %s', (record, named) => expect(namedVm(record)).toBe(named));
});
