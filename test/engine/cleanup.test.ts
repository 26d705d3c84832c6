// Cleanup against lists the suite has never seen: pages from 0 or 1, newest first, a total or none (or one under
// another name), a target that serves fewer items than asked, ids unlike the reference's, deletes refused while a VM
// is still being made. A stub target answers, so each case is exactly the list it describes.
import { describe, it, expect } from 'vitest';
import { sweepList } from '../../src/engine/target/list-sweep.ts';
import { cleanup, createdId } from '../../src/engine/target/cleanup.ts';
import { RunObjects, MAX_WALK_PAGES } from '../../src/engine/target/run-objects.ts';
import { Ledger } from '../../src/engine/target/ledger.ts';
import { Waits } from '../../src/engine/transport/waits.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';
import type { Declarations } from '../../src/spec/declarations.ts';

const RUN = 'f00dcafe';
// A target-second is a real millisecond: the bounded waits for a VM still being made last tens of milliseconds.
const config = { runId: RUN, timeScale: 1000, taskTimeoutSeconds: 5, profile: 'quick' } as RunConfig;

interface ListShape {
  base: 0 | 1;
  newestFirst: boolean;
  /** Where the total sits: a top-level field, meta.total_items (with meta.pages), a header, or nowhere. */
  total: 'total' | 'meta' | 'header' | 'none';
  /** Most items a page holds whatever per_page asks (a target that serves fewer than asked). */
  cap: number;
  /** A target counting from 1, asked for page 0: refused, answered empty, or answered as page 1. */
  pageZero: 'refused' | 'empty' | 'first';
  /** A page past the last one: empty, or 404. */
  pastEnd: 'empty' | 404;
}

interface StubVm {
  id: string;
  name: string;
  /** Real ms until its create task ends: a delete before then is refused 409. */
  readyAt: number;
  deleting?: boolean;
}

let seq = 0;
const answer = (
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
  method = 'GET',
  url = ''
): Exchange => ({
  seq: ++seq,
  sentBy: 'test',
  request: { method, url: `http://t${url}`, headers: {} },
  response: { status, headers, body: JSON.stringify(json), json },
  startedAt: '',
  durationMs: 0,
});

/**
 * A target holding `others` VMs of someone else's and the run's VMs, listed as `shape` says; ids like i-1a2b3c4d.
 * Deletes answer 202 and a task that ends at once; `refuseDeletes` answers them 403; a VM not ready yet (readyAt)
 * is refused 409, as while its create task runs.
 */
function stubTarget(shape: ListShape, others: number, opts: { refuseDeletes?: boolean } = {}) {
  const vms: StubVm[] = [];
  const hex = (n: number) => `i-${((n * 2654435761) % 2 ** 32).toString(16).padStart(8, '0')}`;
  let n = 0;
  const add = (name: string, readyAt = 0) => {
    const vm = { id: hex(++n), name, readyAt };
    vms.push(vm);
    return vm;
  };
  for (let i = 0; i < others; i++) add(`web-${i}`);
  const tasks = new Map<string, string>();
  const calls: string[] = [];
  const call = async (o: CallOptions): Promise<Exchange> => {
    calls.push(`${o.method} ${o.path}${o.query ? ` ${JSON.stringify(o.query)}` : ''}`);
    if (o.method === 'GET' && o.path === '/v1/vms') return list(o.query as { page: number; per_page: number });
    const del = /^\/v1\/vms\/(.+)$/.exec(o.path);
    if (o.method === 'DELETE' && del) {
      const vm = vms.find((v) => v.id === decodeURIComponent(del[1]!));
      if (!vm) return answer(404, { error: { code: 'not_found', message: 'no such vm' } }, {}, 'DELETE', o.path);
      if (opts.refuseDeletes) return answer(403, { error: { code: 'forbidden', message: 'no' } }, {}, 'DELETE', o.path);
      if (Date.now() < vm.readyAt)
        return answer(409, { error: { code: 'conflict', message: 'vm is provisioning' } }, {}, 'DELETE', o.path);
      vms.splice(vms.indexOf(vm), 1);
      const task = `op-${tasks.size + 1}`;
      tasks.set(task, 'done');
      return answer(202, { operation: { id: task } }, {}, 'DELETE', o.path);
    }
    const task = /^\/v1\/tasks\/(.+)$/.exec(o.path);
    if (task && tasks.has(task[1]!)) return answer(200, { id: task[1], state: 'succeeded' });
    return answer(404, { error: { code: 'not_found', message: 'no route' } });
  };
  const list = (q: { page: number; per_page: number }): Exchange => {
    const ordered = shape.newestFirst ? [...vms].reverse() : vms;
    const size = Math.min(q.per_page, shape.cap);
    if (shape.base === 1 && q.page === 0) {
      if (shape.pageZero === 'refused')
        return answer(400, { error: { code: 'invalid', message: 'page must be >= 1' } });
      if (shape.pageZero === 'empty') return page([], 0, q.page, size);
      q = { ...q, page: 1 };
    }
    const start = (q.page - shape.base) * size;
    if (start >= ordered.length && q.page > shape.base && shape.pastEnd === 404)
      return answer(404, { error: { code: 'not_found', message: 'no such page' } });
    return page(ordered.slice(start, start + size), ordered.length, q.page, size);
  };
  const page = (items: StubVm[], total: number, p: number, size: number): Exchange => {
    const vmsOut = items.map((v) => ({ id: v.id, name: v.name, status: v.deleting ? 'deleting' : 'running' }));
    if (shape.total === 'meta')
      return answer(200, { vms: vmsOut, meta: { total_items: total, page: p, pages: Math.ceil(total / size) } });
    if (shape.total === 'header') return answer(200, { vms: vmsOut }, { 'x-total-count': String(total) });
    if (shape.total === 'total') return answer(200, { vms: vmsOut, total });
    return answer(200, { vms: vmsOut, page: p });
  };
  return { vms, add, call, calls };
}

const SHAPES: ListShape[] = [];
for (const base of [0, 1] as const)
  for (const newestFirst of [true, false])
    for (const total of ['total', 'meta', 'header', 'none'] as const)
      SHAPES.push({
        base,
        newestFirst,
        total,
        cap: total === 'meta' ? 50 : 100,
        pageZero: (['refused', 'empty', 'first'] as const)[(total.length + (newestFirst ? 1 : 0)) % 3]!,
        pastEnd: total === 'header' ? 404 : 'empty',
      });

const label = (s: ListShape) =>
  `pages from ${s.base}${s.base === 1 ? ` (page 0 ${s.pageZero})` : ''}, ${s.newestFirst ? 'newest' : 'oldest'} first, total ${s.total}, at most ${s.cap} a page, past the end ${s.pastEnd}`;

describe('sweeping the list for the run’s prefix', () => {
  for (const shape of SHAPES)
    it(`finds every VM of the run: ${label(shape)}`, async () => {
      const t = stubTarget(shape, 230);
      const ours = Array.from({ length: 60 }, (_, i) => t.add(`cc-${RUN}-quota${String(i + 1).padStart(3, '0')}`));
      for (let i = 0; i < 20; i++) t.add(`later-${i}`);
      const sweep = await sweepList(t.call, { prefix: `cc-${RUN}-`, maxPages: MAX_WALK_PAGES });
      expect(sweep.complete, sweep.stoppedBecause).toBe(true);
      expect(sweep.matches.map((m) => m['id']).sort()).toEqual(ours.map((v) => v.id).sort());
      expect(sweep.seen).toBe(310);
    });

  it('says a walk cut at its bound is incomplete', async () => {
    const t = stubTarget(SHAPES[0]!, 500);
    const sweep = await sweepList(t.call, { prefix: `cc-${RUN}-`, maxPages: 3 });
    expect([sweep.complete, sweep.stoppedBecause]).toEqual([false, expect.stringMatching(/stopped after 3 pages/)]);
  });
});

const declarations = { cleanup: {}, task: {} } as unknown as Declarations;

async function cleanupOf(t: ReturnType<typeof stubTarget>, ledger: Ledger, log: Exchange[] = []) {
  const objects = new RunObjects(t.call, config, declarations, ledger);
  return cleanup({ declarations, ledger, log, objects, config, waits: new Waits(), call: t.call });
}

describe('cleanup', () => {
  for (const shape of [SHAPES[0]!, SHAPES[7]!, SHAPES[9]!, SHAPES[15]!])
    it(`deletes every VM of the run and leaves nothing: ${label(shape)}`, async () => {
      const t = stubTarget(shape, 150);
      const ledger = new Ledger();
      // Created just now (the last still provisioning), found again by name: the create answers named no VM id.
      for (let i = 0; i < 40; i++) {
        const vm = t.add(`cc-${RUN}-pop${i}`, i === 39 ? Date.now() + 30 : 0);
        ledger.record({ kind: 'vm', name: vm.name, createdBy: 'certify' });
      }
      // One the run lost the answer to: not in the ledger, found by its prefix.
      t.add(`cc-${RUN}-lost`);
      const out = await cleanupOf(t, ledger, [answer(202, {}, {}, 'POST', '/v1/vms')]);
      expect(out.leftBehind).toEqual([]);
      expect(t.vms.filter((v) => v.name.startsWith(`cc-${RUN}-`))).toEqual([]);
      expect(t.vms).toHaveLength(150);
      expect(ledger.entries.filter((e) => e.cleanup !== 'deleted')).toEqual([]);
      expect(ledger.entries.find((e) => e.name === `cc-${RUN}-lost`)?.createdBy).toBe('cleanup');
      expect(out.sweeps?.[0]).toMatchObject({ owner: 'primary', complete: true, found: 0 });
    });

  it('takes the id a create answer gave, without a walk to find it', async () => {
    const t = stubTarget(SHAPES[0]!, 10);
    const ledger = new Ledger();
    const vm = t.add(`cc-${RUN}-vm1`);
    const created = answer(202, { vm_id: vm.id, task_id: 't-1' }, {}, 'POST', '/v1/vms');
    ledger.record({ kind: 'vm', name: vm.name, createdBy: 'setup' }, created);
    await cleanupOf(t, ledger, [created]);
    expect(ledger.entries[0]).toMatchObject({ id: vm.id, cleanup: 'deleted' });
    expect(t.calls.findIndex((c) => c.startsWith('DELETE'))).toBeLessThan(
      t.calls.findIndex((c) => c.startsWith('GET'))
    );
  });

  it('reads the id off the create task where neither the answer nor the list can name the VM', async () => {
    const t = stubTarget(SHAPES[0]!, 10);
    // A name without the run's prefix (a create that kept no name): the list cannot tell it apart.
    const vm = t.add('unnamed-1');
    const created = answer(202, { task_id: 'c-1' }, {}, 'POST', '/v1/vms');
    const call = async (o: CallOptions) =>
      o.path === '/v1/tasks/c-1' ? answer(200, { id: 'c-1', state: 'succeeded', resource_id: vm.id }) : t.call(o);
    const ledger = new Ledger();
    ledger.record({ kind: 'vm', name: '', createdBy: 'vms.create-fuzz' }, created);
    const objects = new RunObjects(call, config, declarations, ledger);
    const out = await cleanup({ declarations, ledger, log: [created], objects, config, waits: new Waits(), call });
    expect(ledger.entries[0]).toMatchObject({ id: vm.id, cleanup: 'deleted' });
    expect(out.leftBehind).toEqual([]);
    expect(t.vms.find((v) => v.id === vm.id)).toBeUndefined();
  });

  it('waits out a 429 as its Retry-After says when every cleanup token is refused, then deletes', async () => {
    const t = stubTarget(SHAPES[0]!, 10);
    const vm = t.add(`cc-${RUN}-vm1`);
    let refusals = 2;
    const call = async (o: CallOptions) =>
      o.method === 'DELETE' && refusals-- > 0
        ? answer(
            429,
            { error: { code: 'rate_limited', message: 'slow down' } },
            { 'retry-after': '3' },
            'DELETE',
            o.path
          )
        : t.call(o);
    const ledger = new Ledger();
    const created = answer(202, { vm_id: vm.id }, {}, 'POST', '/v1/vms');
    ledger.record({ kind: 'vm', name: vm.name, createdBy: 'setup' }, created);
    const waits = new Waits();
    const objects = new RunObjects(call, config, declarations, ledger);
    const out = await cleanup({ declarations, ledger, log: [created], objects, config, waits, call, lanes: ['main'] });
    expect([ledger.entries[0]!.cleanup, out.leftBehind]).toEqual(['deleted', []]);
    // Two refusals, each waited out for its 3 target-seconds (3 ms here).
    expect(waits.totals['retry-after'].count).toBe(2);
    expect(waits.totals['retry-after'].ms).toBeGreaterThanOrEqual(6);
  });

  it('reports what a refused delete leaves, with the request that would delete it', async () => {
    const t = stubTarget(SHAPES[3]!, 120, { refuseDeletes: true });
    const ledger = new Ledger();
    for (let i = 0; i < 3; i++) ledger.record({ kind: 'vm', name: t.add(`cc-${RUN}-q${i}`).name, createdBy: 'x' });
    const out = await cleanupOf(t, ledger, [answer(202, {}, {}, 'POST', '/v1/vms')]);
    expect(out.leftBehind).toHaveLength(3);
    expect(out.leftBehind.find((l) => l.name === `cc-${RUN}-q0`)).toMatchObject({
      kind: 'vm',
      name: `cc-${RUN}-q0`,
      owner: 'primary',
      listed: true,
      reason: expect.stringMatching(/403/),
      delete: { method: 'DELETE', path: `/v1/vms/${t.vms.find((v) => v.name === `cc-${RUN}-q0`)!.id}` },
    });
  });
});

describe('cleanup without a token to ask with', () => {
  it('says every VM not deleted is left behind, from the ledger, when no request can be made', async () => {
    const ledger = new Ledger();
    ledger.record({ kind: 'vm', name: `cc-${RUN}-vm1`, createdBy: 'setup' });
    const call = async (): Promise<Exchange> => {
      throw new Error('the token issuance budget is spent');
    };
    const objects = new RunObjects(call, config, declarations, ledger);
    const log = [answer(202, {}, {}, 'POST', '/v1/vms')];
    const out = await cleanup({ declarations, ledger, log, objects, config, waits: new Waits(), call });
    expect(out.sweeps?.[0]).toMatchObject({ complete: false, stoppedBecause: expect.stringMatching(/not sent/) });
    expect(out.leftBehind).toEqual([
      expect.objectContaining({
        kind: 'vm',
        name: `cc-${RUN}-vm1`,
        listed: false,
        reason: expect.stringMatching(/not sent|could not be read whole/),
      }),
    ]);
  });
});

describe('the first page number, on a list that moves while it is asked', () => {
  /** A newest-first list that gains `grow` VMs before every read for the first `moving` reads, then holds still. */
  function moving(base: 0 | 1, grow: number, moving: number) {
    let n = 40;
    let reads = 0;
    const call = async (o: CallOptions): Promise<Exchange> => {
      if (reads++ < moving) n += grow;
      const q = o.query as { page: number; per_page: number };
      const page = base === 1 && q.page === 0 ? 1 : q.page;
      const ids = Array.from({ length: n }, (_, i) => `i-${n - i}`);
      const start = (page - base) * q.per_page;
      return answer(200, { vms: ids.slice(start, start + q.per_page).map((id) => ({ id, name: id })), total: n });
    };
    return new RunObjects(call, config, { task: {} } as unknown as Declarations, new Ledger());
  }

  it('counts from 0 on a list that shifts by three VMs between reads, once it holds still', async () => {
    expect(await moving(0, 3, 4).firstPage()).toBe(0);
  });

  it('counts from 1 where page 0 is page 1 again, however the list shifts', async () => {
    expect(await moving(1, 3, 4).firstPage()).toBe(1);
    expect(await moving(1, 3, 1000).firstPage()).toBe(1);
  });
});

describe('the id of what a create made, where the overlay does not say where it is', () => {
  const answer = (json: unknown) => ({ response: { status: 201, headers: {}, body: '', json } }) as unknown as Exchange;
  const none = { cleanup: {} } as unknown as Declarations;
  it('is the answer’s id, or the id of the object named after the kind, or of the only object holding one', () => {
    expect(createdId(none, 'webhook', answer({ id: 'wh-1', url: 'x' }))).toBe('wh-1');
    expect(createdId(none, 'webhook', answer({ webhook: { id: 'wh-2' }, secret: 's' }))).toBe('wh-2');
    expect(createdId(none, 'alarm', answer({ data: { id: 'al-3' }, links: [] }))).toBe('al-3');
    expect(createdId(none, 'alarm', answer({ a: { id: 'x' }, b: { id: 'y' } }))).toBeUndefined();
  });
  it('is never guessed for a VM, whose create may answer with its task’s id at the top', () => {
    expect(createdId(none, 'vm', answer({ id: 'task-1', status: 'pending' }))).toBeUndefined();
  });
});
