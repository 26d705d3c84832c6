import type { Check } from '../../src/engine/check.ts';
import { readonlyWriteRefused } from './readonly-write-refused.ts';

export const securityChecks: Check[] = [readonlyWriteRefused];
