import type { Check } from '../../src/engine/run/check.ts';
import { TASK_READS, sharing } from '../shares.ts';
import { reachesTerminal } from './reaches-terminal.ts';
import { terminalStable } from './terminal-stable.ts';
import { longRunningOperations } from './long-running.ts';

export const taskChecks: Check[] = sharing([TASK_READS], [reachesTerminal, terminalStable, longRunningOperations]);
