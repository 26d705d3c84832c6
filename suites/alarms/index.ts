import type { Check } from '../../src/engine/check.ts';
import { ALARMS, sharing } from '../shares.ts';
import { alarmFires } from './fires.ts';

export const alarmChecks: Check[] = sharing([ALARMS], [alarmFires]);
