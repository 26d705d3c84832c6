import type { Check } from '../../src/engine/run/check.ts';
import { ALARMS, sharing } from '../shares.ts';
import { alarmFires } from './fires.ts';

export const alarmChecks: Check[] = sharing([ALARMS], [alarmFires]);
