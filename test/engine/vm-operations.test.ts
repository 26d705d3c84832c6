// The run's long-running operations on one VM (RunObjects.onVm), against a stub target that runs one operation per VM
// at a time and refuses another meanwhile with 409, as java-httpserver, node-fastify and python-stdlib of the zoo do.
import { describe, it, expect } from 'vitest';
import { RunObjects } from '../../src/engine/target/run-objects.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { INPUT_NAMES } from '../../src/cli/options.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';
import { Ledger } from '../../src/engine/target/ledger.ts';

const config = { runId: 'test', timeScale: 1000, taskTimeoutSeconds: 60, names: INPUT_NAMES } as RunConfig;

function answer(o: CallOptions, status: number, json: unknown): Exchange {
  return {
    seq: 0,
    sentBy: 'test',
    request: { method: o.method, url: `http://t${o.path}`, headers: {} },
    response: { status, headers: {}, body: JSON.stringify(json), json },
    startedAt: new Date().toISOString(),
    durationMs: 0,
  };
}

/**
 * A VM that runs one backup at a time: with a task the answer names, it ends after `polls` reads of it; without one
 * (`taskInAnswer` false), after `ms` real milliseconds. Another backup meanwhile is refused 409.
 */
function target(polls: number, taskInAnswer = true, ms = 30) {
  let running: { id: string; left: number; until: number } | undefined;
  let n = 0;
  const statuses: number[] = [];
  const call = async (o: CallOptions): Promise<Exchange> => {
    if (running && !taskInAnswer && Date.now() >= running.until) running = undefined;
    if (o.method === 'GET') {
      const id = o.path.split('/').pop()!;
      if (running?.id === id && --running.left <= 0) running = undefined;
      const known = id.startsWith('task-') && Number(id.slice(5)) <= n;
      return answer(o, known ? 200 : 404, { id, status: running?.id === id ? 'running' : 'succeeded' });
    }
    if (running) {
      statuses.push(409);
      return answer(o, 409, { error: { code: 'conflict', message: 'another operation is in progress' } });
    }
    running = { id: `task-${++n}`, left: polls, until: Date.now() + ms };
    statuses.push(202);
    return answer(o, 202, taskInAnswer ? { task_id: running.id } : {});
  };
  const objects = new RunObjects(call, config, { task: {} } as never, new Ledger());
  const backup = () => objects.onVm('vm-1', () => call({ method: 'POST', path: '/v1/vms/vm-1/backups' }));
  return { objects, backup, statuses };
}

describe("the run's operations on one VM", () => {
  it('are sent one at a time, each once the previous task has ended, so none is refused for the run itself', async () => {
    const t = target(3);
    const answers = await Promise.all([t.backup(), t.backup(), t.backup()]);
    expect(answers.map((a) => a.response?.status)).toEqual([202, 202, 202]);
    expect(t.statuses).toEqual([202, 202, 202]);
  });

  it("wait out a 409 and send again where an earlier operation's task could not be followed", async () => {
    const t = target(4, false);
    const answers = await Promise.all([t.backup(), t.backup()]);
    expect(answers.map((a) => a.response?.status)).toEqual([202, 202]);
    expect(t.statuses.filter((s) => s === 409).length).toBeGreaterThan(0);
  });

  it("leave a 409 the run did not cause to the check: nothing of the run's is under way", async () => {
    const t = target(3);
    const refused = await t.objects.onVm('vm-2', async () => answer({ method: 'POST', path: '/x' }, 409, {}));
    expect(refused.response?.status).toBe(409);
  });
});
