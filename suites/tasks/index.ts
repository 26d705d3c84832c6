import type { Check } from '../../src/engine/check.ts';
import { reachesTerminal } from './reaches-terminal.ts';
import { terminalStable } from './terminal-stable.ts';

export const taskChecks: Check[] = [reachesTerminal, terminalStable];
