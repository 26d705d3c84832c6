import { it } from 'vitest';
import { runAgainstReference } from '../helpers.ts';
it('tr', async () => {
  for (const seed of [1, 2, 3]) {
    const r = await runAgainstReference({ faults: ['task-regresses'], only: ['vms', 'tasks', 'pagination', 'errors'], seed });
    const c = r.checks.find((c) => c.id === 'tasks.terminal-stable')!;
    console.log(seed, c.status, c.message);
  }
}, 300_000);
