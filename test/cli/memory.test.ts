import { describe, expect, it } from 'vitest';
import { startBufferReaper } from '../../src/cli/memory.ts';

const MB = 1024 * 1024;

/** Drives the reaper by hand: each tick sees the next amount of held ArrayBuffer memory. */
function drive(heldPerTick: number[], gc?: (o?: { type?: string }) => void) {
  let tick: (() => void) | undefined;
  let held = 0;
  let stopped = false;
  const stop = startBufferReaper({ gc, held: () => held, every: (fn) => ((tick = fn), () => (stopped = true)) });
  for (const h of heldPerTick) {
    held = h;
    tick?.();
  }
  stop();
  return { ticked: tick !== undefined, stopped };
}

describe('collecting dead Buffers during a run (peak RSS)', () => {
  it('does nothing without an exposed collector (node started without --expose-gc)', () => {
    expect(drive([100 * MB])).toEqual({ ticked: false, stopped: false });
  });

  it('leaves small amounts alone, tries a young collection first, and a full one when that did not free enough', () => {
    const calls: string[] = [];
    const r = drive([4 * MB, 40 * MB, 40 * MB, 12 * MB, 6 * MB, 30 * MB], (o) => calls.push(o?.type ?? 'full'));
    expect(calls).toEqual(['minor', 'full', 'minor', 'minor']);
    expect(r.stopped).toBe(true);
  });
});
