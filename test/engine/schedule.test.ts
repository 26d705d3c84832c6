import { describe, expect, it } from 'vitest';
import type { Check } from '../../src/engine/run/check.ts';
import { runScheduled, sharesOf, API_TARGET } from '../../src/engine/run/schedule.ts';

const check = (id: string, shares?: string[], onlyReads = false): Check => ({
  id,
  group: 'g',
  clauses: [],
  level: 'must',
  why: {},
  title: id,
  ...(shares ? { shares } : {}),
  ...(onlyReads ? { onlyReads: true as const } : {}),
  run: async () => ({ status: 'passed', message: id }),
});

/** Runs the checks with each one's run held open until released, recording starts and ends. */
function harness(checks: Check[], sequential = false) {
  const events: string[] = [];
  const release = new Map<string, () => void>();
  const started = new Set<string>();
  const done = runScheduled(
    checks,
    (c) => {
      events.push(`start ${c.id}`);
      started.add(c.id);
      return new Promise<string>((resolve) =>
        release.set(c.id, () => {
          events.push(`end ${c.id}`);
          resolve(c.id);
        })
      );
    },
    sequential
  );
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return {
    events,
    started,
    done,
    end: async (id: string) => {
      release.get(id)!();
      await tick();
      await tick();
    },
    tick,
  };
}

describe('scheduling checks (checks that share no budget and no state run concurrently)', () => {
  it('a check that declares nothing shares the API target', () => {
    expect(sharesOf(check('a'))).toEqual([API_TARGET]);
    expect(sharesOf(check('b', ['s3']))).toEqual(['s3']);
  });

  it('starts checks that share nothing side by side, and keeps the order of checks that share something', async () => {
    const h = harness([
      check('api-1'),
      check('s3-1', ['s3']),
      check('api-2'),
      check('events-1', ['events']),
      check('s3-2', ['s3']),
    ]);
    await h.tick();
    expect([...h.started]).toEqual(['api-1', 's3-1', 'events-1']);
    await h.end('s3-1');
    expect(h.started.has('s3-2')).toBe(true);
    expect(h.started.has('api-2')).toBe(false);
    await h.end('api-1');
    expect(h.started.has('api-2')).toBe(true);
    for (const id of ['api-2', 'events-1', 's3-2']) await h.end(id);
    expect(await h.done).toEqual(['api-1', 's3-1', 'api-2', 'events-1', 's3-2']);
  });

  it('a check that shares with several waits for each of them (the audit trail after the API, backups and events)', async () => {
    const h = harness([
      check('api-1'),
      check('events-1', ['events']),
      check('audit', ['api', 'events']),
      check('s3-1', ['s3']),
    ]);
    await h.tick();
    expect(h.started.has('s3-1')).toBe(true);
    await h.end('api-1');
    expect(h.started.has('audit')).toBe(false);
    await h.end('events-1');
    expect(h.started.has('audit')).toBe(true);
    await h.end('audit');
    await h.end('s3-1');
    await h.done;
  });

  it('checks next to each other that only read run side by side, after the last that may change what they read, and before the next', async () => {
    const reader = (id: string) => check(id, undefined, true);
    const h = harness([check('create'), reader('walk-1'), reader('walk-2'), check('delete'), reader('walk-3')]);
    await h.tick();
    expect([...h.started]).toEqual(['create']);
    await h.end('create');
    expect([...h.started]).toEqual(['create', 'walk-1', 'walk-2']);
    await h.end('walk-2');
    expect(h.started.has('delete')).toBe(false);
    await h.end('walk-1');
    expect(h.started.has('delete')).toBe(true);
    expect(h.started.has('walk-3')).toBe(false);
    await h.end('delete');
    expect(h.started.has('walk-3')).toBe(true);
    await h.end('walk-3');
    expect(await h.done).toEqual(['create', 'walk-1', 'walk-2', 'delete', 'walk-3']);
  });

  it('sequential: readers too wait for the one before them', async () => {
    const h = harness([check('a', undefined, true), check('b', undefined, true)], true);
    await h.tick();
    expect([...h.started]).toEqual(['a']);
    await h.end('a');
    expect([...h.started]).toEqual(['a', 'b']);
    await h.end('b');
    await h.done;
  });

  it('sequential: each check after the one before it', async () => {
    const h = harness([check('a'), check('b', ['s3']), check('c', ['events'])], true);
    await h.tick();
    expect([...h.started]).toEqual(['a']);
    await h.end('a');
    expect([...h.started]).toEqual(['a', 'b']);
    await h.end('b');
    await h.end('c');
    expect(h.events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    await h.done;
  });

  it('a check that throws does not hold back the checks after it', async () => {
    const seen: string[] = [];
    const out = runScheduled([check('a'), check('b')], async (c) => {
      seen.push(c.id);
      if (c.id === 'a') throw new Error('boom');
      return c.id;
    });
    await expect(out).rejects.toThrow('boom');
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(['a', 'b']);
  });
});
