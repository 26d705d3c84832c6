import type { Check } from '../../src/engine/check.ts';
import { reachesTerminal } from './reaches-terminal.ts';

export const taskChecks: Check[] = [reachesTerminal];
