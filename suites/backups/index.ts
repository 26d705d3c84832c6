import type { Check } from '../../src/engine/check.ts';
import { startBackup } from './start.ts';

export const backupChecks: Check[] = [startBackup];
