// Walking a list the suite has never seen: pages past the end refused, lists that move while walked, lists longer than
// a bounded walk. A stub target answers, so each case is exactly the list it describes.
import { describe, it, expect } from 'vitest';
import { RunObjects, fitPerPage, MAX_WALK_PAGES, type ListWalk } from '../../src/engine/target/run-objects.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { RunConfig } from '../../src/engine/config/config.ts';
import { Ledger } from '../../src/engine/target/ledger.ts';

const config = { runId: 'test', timeScale: 100_000, taskTimeoutSeconds: 1 } as RunConfig;

function answer(status: number, json: unknown, headers: Record<string, string> = {}): Exchange {
  return {
    seq: 0,
    sentBy: 'test',
    request: { method: 'GET', url: 'http://t/v1/vms', headers: {} },
    response: { status, headers, body: JSON.stringify(json), json },
    startedAt: '',
    durationMs: 0,
  };
}

/**
 * A target listing `size()` VMs (1-based pages, a total), refusing a page past the last one with `pastEnd` when given.
 * `size` is read at every request, so a list can grow while it is walked.
 */
function target(size: () => number, opts: { pastEnd?: number; total?: (n: number) => number } = {}) {
  const calls: Array<Record<string, unknown>> = [];
  const call = async (o: CallOptions): Promise<Exchange> => {
    const q = o.query as { page: number; per_page: number };
    calls.push(q);
    const n = size();
    const start = (q.page - 1) * q.per_page;
    if (opts.pastEnd && q.page > 1 && start >= n)
      return answer(opts.pastEnd, { error: { code: 'not_found', message: 'no such page' } });
    // Newest first: a VM that appears shifts every page by one.
    const ids = Array.from({ length: n }, (_, i) => `vm-${n - i}`);
    return answer(200, {
      vms: ids.slice(start, start + q.per_page).map((id) => ({ id, name: id })),
      total: opts.total ? opts.total(n) : n,
    });
  };
  return { calls, objects: new RunObjects(call, config, { firstPage: 1 } as never, new Ledger()) };
}

const ids = (w: ListWalk) => w.items.map((v) => v['id']);

describe('walking the VM list', () => {
  it('takes a refused page after a full last page as the end when the total says every VM was seen', async () => {
    const { objects } = target(() => 200, { pastEnd: 404 });
    const w = await objects.walk(100);
    expect([w.complete, w.items.length, w.stoppedBecause]).toEqual([
      true,
      200,
      expect.stringMatching(/past the last page/),
    ]);
  });

  it('keeps a refused page a failure when the total says there are more', async () => {
    const { objects } = target(() => 200, { pastEnd: 404, total: () => 250 });
    const w = await objects.walk(100);
    expect([w.complete, w.capped, w.stoppedBecause]).toEqual([false, false, 'page 3 answered 404']);
  });

  it('walks again once a list that moved under it has settled, and says when it never held still', async () => {
    let n = 30;
    const settling = target(() => (n < 33 ? n++ : n));
    const w = await settling.objects.walk(10);
    expect([w.complete, w.moved, new Set(ids(w)).size, ids(w).length]).toEqual([true, false, 33, 33]);

    let m = 30;
    const restless = target(() => m++);
    const r = await restless.objects.walk(10);
    expect([r.complete, r.moved]).toEqual([true, true]);
  });

  it("stops at the page bound, capped (not the target's fault), and fits later page sizes to what it learned", async () => {
    const { objects, calls } = target(() => 3000);
    const capped = await objects.walk(10);
    expect([capped.complete, capped.capped, capped.pages.length]).toEqual([false, true, MAX_WALK_PAGES]);
    await objects.walk(100);
    calls.length = 0;
    const fitted = await objects.walk(25);
    expect([fitted.complete, fitted.perPage, fitted.items.length]).toEqual([true, fitPerPage(25, 3000), 3000]);
    expect(fitPerPage(25, 100)).toBe(25);
  });
});
