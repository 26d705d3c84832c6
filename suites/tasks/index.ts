import type { Check } from '../../src/engine/run/check.ts';
import { LONG_RUNNING_TASKS, TASK_READS, sharing } from '../shares.ts';
import { reachesTerminal } from './reaches-terminal.ts';
import { terminalStable } from './terminal-stable.ts';
import { longRunningOperations } from './long-running.ts';
import { everyTaskCompletes } from './every-task-completes.ts';

longRunningOperations.shares = [LONG_RUNNING_TASKS];
export const taskChecks: Check[] = sharing(
  [TASK_READS],
  [reachesTerminal, terminalStable, longRunningOperations, everyTaskCompletes]
);
