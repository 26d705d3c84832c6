import type { Check } from '../../src/engine/run/check.ts';
import { BACKUPS, sharing } from '../shares.ts';
import { startBackup } from './start.ts';
import { missingVm } from './missing-vm.ts';
import { restoreTask } from './restore-task.ts';

export const backupChecks: Check[] = sharing([BACKUPS], [startBackup, missingVm, restoreTask]);
