import { describe, expect, it } from 'vitest';
import { taskTimeoutRealMs } from '../../src/engine/config/config.ts';

// Found by CI: at time scale 1,200 (the tests' clock) the 120 s task timeout is 100 real ms, shorter than a pause of a
// busy two-core machine; a task the target had finished was read as timed out, and a check skipped where it fails.
describe('the task timeout in real time', () => {
  it('is --task-timeout at the time scale, where that is long enough to judge', () => {
    expect(taskTimeoutRealMs({ taskTimeoutSeconds: 120, timeScale: 1 })).toBe(120_000);
    expect(taskTimeoutRealMs({ taskTimeoutSeconds: 120, timeScale: 10 })).toBe(12_000);
    expect(taskTimeoutRealMs({ taskTimeoutSeconds: 120, timeScale: 60 })).toBe(2_000);
  });

  it('is never under 2 real seconds, whatever the scale: a stall of the run is not the target being slow', () => {
    expect(taskTimeoutRealMs({ taskTimeoutSeconds: 120, timeScale: 1200 })).toBe(2_000);
    expect(taskTimeoutRealMs({ taskTimeoutSeconds: 1, timeScale: 1 })).toBe(2_000);
  });
});
