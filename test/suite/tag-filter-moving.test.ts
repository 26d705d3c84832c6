// vms.tag-filter compares the filtered list with a walk of the whole list made before it: a VM that left the list in
// between (the run deletes VMs of its own meanwhile: tasks.long-running-operations' VM) is not one the filter left
// out; one a later walk still shows carrying the tag is (go-nethttp's overlay run).
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { ListWalk, TagField } from '../../src/engine/target/run-objects.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { tagFilter } from '../../suites/vms/tag-filter.ts';

const vm = (id: string) => ({ id, name: id, tags: { 'cc-run': 'r1' } });
const walk = (ids: string[]): ListWalk => ({
  perPage: 100,
  firstPage: 1,
  pages: [],
  items: ids.map(vm),
  complete: true,
  stoppedBecause: 'short page',
  capped: false,
  moved: false,
});

/** A list whose whole walks show `walks` in turn, and whose filter returns `filtered`. */
function context(walks: string[][], filtered: string[]): CheckContext {
  const none: Exchange = {
    seq: 0,
    sentBy: 't',
    request: { method: 'GET', url: 'http://t/v1/vms?tag=x', headers: {} },
    response: { status: 200, headers: {}, body: '{"vms":[]}', json: { vms: [] } },
    startedAt: '',
    durationMs: 0,
  };
  let n = 0;
  return {
    config: { runId: 'r1' },
    declarations: { tagsField: 'tags' },
    call: async () => none,
    observe: () => {},
    view: () => {},
    objects: {
      listScale: async () => ({ whole: true, large: false, firstPage: none }),
      vm: async () => ({ accepted: true, name: 'vm-a', tags: { 'cc-run': 'r1' } }),
      // What RunObjects.tagField answers where the overlay declares the field (declarations.tagsField above).
      tagField: async (): Promise<TagField> => ({ field: 'tags', shape: 'map', how: 'declared' }),
      walk: async (_: number, query: Record<string, string> = {}) =>
        query['tag'] ? walk(filtered) : walk(walks[Math.min(n++, walks.length - 1)]!),
    },
  } as unknown as CheckContext;
}

describe('vms.tag-filter on a list the run changes while it compares', () => {
  it('does not count a VM that left the list between the walks as left out', async () => {
    const outcome = await tagFilter.run(context([['vm-a', 'vm-x'], ['vm-a']], ['vm-a']));
    expect(outcome.status).toBe('passed');
  });

  it('fails a VM that a later walk still shows carrying the tag', async () => {
    const outcome = await tagFilter.run(
      context(
        [
          ['vm-a', 'vm-x'],
          ['vm-a', 'vm-x'],
        ],
        ['vm-a']
      )
    );
    expect(outcome).toMatchObject({ status: 'failed', message: expect.stringMatching(/left out 1 VMs that carry it/) });
  });
});
