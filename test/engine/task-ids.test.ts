import { describe, it, expect } from 'vitest';
import { lastSegment, taskIdCandidates, taskIdIn, taskIdInName } from '../../src/engine/target/discover.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';

/** A create answer as the run records it. */
function answer(json: unknown, headers: Record<string, string> = {}): Exchange {
  return {
    seq: 0,
    sentBy: 't',
    request: { method: 'POST', url: 'http://x/v1/vms', headers: {} },
    response: { status: 202, headers, body: JSON.stringify(json), json },
    startedAt: '',
    durationMs: 0,
  } as Exchange;
}

const firstValues = (ex: Exchange, n = 1) =>
  taskIdCandidates(ex)
    .slice(0, n)
    .map((c) => c.value);

// A task id given as a resource name (operations/<id>, tasks/<id>, a URL) names its task by its last segment.
describe('a task named by a resource name or URL', () => {
  it.each([
    ['operations/op-1', 'op-1'],
    ['tasks/t-1', 't-1'],
    ['projects/p/locations/l/operations/op-2', 'op-2'],
    ['https://api.example.com/v1/operations/op-3?alt=json', 'op-3'],
    ['//compute.example.com/projects/p/operations/op%2F4', 'op/4'],
    ['jobs/j-5', 'j-5'],
    ['vms/vm-1', undefined],
    ['https://api.example.com/v1/vms/vm-1', undefined],
    ['operation-7', undefined],
    ['a sentence with operations/x in it', undefined],
  ])('%s names task %s', (value, id) => {
    expect(taskIdInName(value)).toBe(id);
  });

  it('reads a declared value that is a path, resource name or URL as the task it names, and a bare id as itself', () => {
    expect(taskIdIn('operations/op-1')).toBe('op-1');
    expect(taskIdIn('/v1/tasks/t-1')).toBe('t-1');
    expect(taskIdIn('t-1')).toBe('t-1');
    expect(lastSegment('https://h/v1/whatever/x-1')).toBe('x-1');
    expect(lastSegment('x-1')).toBeUndefined();
  });

  it('tries the name of a long-running operation first ({"operation": {"name": "operations/<id>"}, "vm": {...}})', () => {
    const ex = answer({
      operation: { name: 'operations/op-1', done: false },
      vm: { id: 'vm-1', name: 'cc-x', image: 'ubuntu' },
    });
    expect(taskIdCandidates(ex)[0]).toEqual({ location: { in: 'body', pointer: '/operation/name' }, value: 'op-1' });
  });

  it('tries the last segment of a task-named field before its whole value ({"task": "tasks/<id>"})', () => {
    expect(firstValues(answer({ vm: 'vms/vm-1', task: 'tasks/t-1' }))).toEqual(['t-1']);
    expect(firstValues(answer({ job_url: 'https://h/api/queue/j-9' }), 2)).toEqual(['j-9', 'https://h/api/queue/j-9']);
  });

  it('finds an operation URL under a name that says nothing (selfLink), and never a VM named the same way (targetLink)', () => {
    const ex = answer({
      kind: 'operation',
      status: 'PENDING',
      targetLink: 'http://h/v1/vms/vm-1',
      selfLink: 'http://h/v1/operations/op-1',
    });
    expect(firstValues(ex)).toEqual(['op-1']);
    expect(taskIdCandidates(ex).map((c) => c.value)).not.toContain('vm-1');
  });

  it('reads a header holding an operation URL (Operation-Location: https://h/v1/operations/<id>)', () => {
    expect(firstValues(answer({ vm_id: 'vm-1' }, { 'operation-location': 'https://h/v1/operations/op-1' }))).toEqual([
      'op-1',
    ]);
  });

  it('keeps the forms it knew: a task_id field, a Location path, a HAL link', () => {
    expect(firstValues(answer({ task_id: 't-1', vm_id: 'vm-1' }, { location: '/v1/tasks/t-1' }))).toEqual(['t-1']);
    expect(firstValues(answer({ id: 'vm-1', _links: { monitor: { href: '/v1/tasks/t-2' } } }))).toEqual(['t-2']);
  });
});
