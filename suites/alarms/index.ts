import type { Check } from '../../src/engine/check.ts';
import { alarmFires } from './fires.ts';

export const alarmChecks: Check[] = [alarmFires];
