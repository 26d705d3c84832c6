// The task of an accepted request: confirmed by the run's own earlier poll where there is one (no request), else by
// one poll with the key of the organization that made it; a poll that does not know the id is a finding, unless the
// run had deleted the VM first; an id sent as a number is a finding; a task is followed until the timeout from its request.
import { describe, expect, it, vi } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { TaskReader } from '../../src/engine/target/request-tasks.ts';
import {
  completionOf,
  taskOfRequest,
  type AcceptedRequest,
  type RequestTaskDeps,
} from '../../src/engine/target/request-tasks.ts';
import { Unavailable } from '../../src/engine/outcome/outcome.ts';

let seq = 0;
function ex(method: string, path: string, status: number, json: unknown, subject = 'primary', headers = {}): Exchange {
  return {
    seq: ++seq,
    sentBy: 'test',
    subject,
    request: { method, url: `http://127.0.0.1:1${path}`, headers: {} },
    response: { status, headers, body: JSON.stringify(json), json },
    startedAt: new Date(Date.now() - 1000).toISOString(),
    durationMs: 1,
  } as Exchange;
}

const TASK_ID = { in: 'body', pointer: '/task_id' } as const;

function deps(answers: Record<string, Exchange>): RequestTaskDeps & { polled: Array<[string, TaskReader]> } {
  const polled: Array<[string, TaskReader]> = [];
  return {
    polled,
    poll: vi.fn(async (id: string, by: TaskReader) => {
      polled.push([id, by]);
      return answers[id] ?? ex('GET', `/v1/tasks/${id}`, 404, { error: { code: 'not_found', message: 'no' } });
    }),
    findTask: vi.fn(async () => {
      throw new Unavailable('no task id found in the response: no candidate field or header');
    }),
    pollTask: vi.fn(async (id: string) => ({
      state: { field: 'status', value: 'running', terminal: false, declared: false },
      polls: [ex('GET', `/v1/tasks/${id}`, 200, { status: 'running' })],
      timedOut: true,
      history: ['running'],
    })),
    task: {},
    timeoutMs: 60_000,
  };
}

const create = (json: unknown, subject = 'primary'): AcceptedRequest => ({
  exchange: ex('POST', '/v1/vms', 202, json, subject),
  operationId: 'createVm',
  location: TASK_ID,
  declared: false,
  as: subject as AcceptedRequest['as'],
});

describe('the task of an accepted request', () => {
  it("is confirmed by the run's own earlier poll, with no request of its own", async () => {
    const req = create({ vm_id: 'vm-1', task_id: 't-1' });
    const log = [req.exchange, ex('GET', '/v1/tasks/t-1', 200, { status: 'succeeded' })];
    const d = deps({});
    const task = await taskOfRequest(d, log, req);
    expect(task).toMatchObject({ kind: 'confirmed', id: 't-1', sent: 0 });
    expect(d.polled).toEqual([]);
  });

  it("is read with the key of the organization that made it: another organization's poll confirms nothing", async () => {
    const req = create({ task_id: 't-2' }, 'second');
    const log = [req.exchange, ex('GET', '/v1/tasks/t-2', 200, { status: 'succeeded' }, 'primary')];
    const d = deps({ 't-2': ex('GET', '/v1/tasks/t-2', 200, { status: 'succeeded' }, 'second') });
    expect(await taskOfRequest(d, log, req)).toMatchObject({ kind: 'confirmed', sent: 1 });
    expect(d.polled).toEqual([['t-2', { as: 'second' }]]);
  });

  it('is a finding when the poll of the id it names answers 404', async () => {
    const req = create({ vm_id: 'vm-3', task_id: 't-3' });
    const task = await taskOfRequest(deps({}), [req.exchange], req);
    expect(task.kind).toBe('finding');
    expect(task.kind !== 'confirmed' && task.why).toMatch(
      /names task "t-3" at body \/task_id, which GET \/v1\/tasks\/\{id\} answers 404/
    );
  });

  it('is not verified when the 404 came after the run deleted the VM (a task may go with its VM)', async () => {
    const req = create({ vm_id: 'vm-4', task_id: 't-4' });
    const log = [req.exchange, ex('DELETE', '/v1/vms/vm-4', 202, { task_id: 't-5' })];
    const d = deps({});
    // The poll comes after the delete in the log.
    d.poll = async (id) => {
      const p = ex('GET', `/v1/tasks/${id}`, 404, {});
      log.push(p);
      return p;
    };
    const task = await taskOfRequest(d, log, req);
    expect(task.kind).toBe('undecided');
  });

  it('is a finding when the answer names no task anywhere, whatever it holds', async () => {
    const req = create({ id: 'vm-6', name: 'x', status: 'running' });
    const task = await taskOfRequest(deps({}), [req.exchange], req);
    expect(task.kind).toBe('finding');
    expect(task.kind !== 'confirmed' && task.why).toMatch(/names no task \(body \/task_id holds nothing\)/);
  });

  it('is a finding when the task id field holds the id as a JSON number, though a string names it elsewhere', async () => {
    const req = {
      ...create({ task_id: 1001 }),
      exchange: ex('POST', '/v1/vms', 202, { task_id: 1001 }, 'primary', { location: '/v1/tasks/1001' }),
    };
    const d = deps({});
    d.findTask = vi.fn(async () => ({
      id: '1001',
      location: { in: 'header' as const, name: 'location' },
      declared: false,
      confirmation: ex('GET', '/v1/tasks/1001', 200, { status: 'succeeded' }),
      tried: [],
    }));
    const task = await taskOfRequest(d, [req.exchange], req);
    expect(task.kind).toBe('finding');
    expect(task.kind !== 'confirmed' && task.why).toMatch(/sends task 1001 as a number at body \/task_id/);
  });

  it('is followed until the task timeout counted from its request, unless the log already read it terminal', async () => {
    const req = create({ task_id: 't-7' });
    const d = deps({});
    const confirmed = {
      kind: 'confirmed' as const,
      id: 't-7',
      location: TASK_ID,
      confirmation: req.exchange,
      elsewhere: false,
      sent: 0,
    };
    const ended = await completionOf(
      d,
      [req.exchange, ex('GET', '/v1/tasks/t-7', 200, { status: 'succeeded' })],
      req,
      confirmed
    );
    expect(ended).toMatchObject({ state: { terminal: true }, sent: 0 });
    expect(d.pollTask).not.toHaveBeenCalled();
    const running = await completionOf(d, [req.exchange], req, confirmed);
    expect(running.state.terminal).toBe(false);
    expect(d.pollTask).toHaveBeenCalledWith('t-7', {
      as: 'primary',
      deadline: Date.parse(req.exchange.startedAt) + 60_000,
    });
  });
});
