import type { Check } from '../../src/engine/run/check.ts';
import { BACKUPS, sharing } from '../shares.ts';
import { startBackup } from './start.ts';
import { missingVm } from './missing-vm.ts';
import { restoreTask } from './restore-task.ts';
import { backupValuesReadBack } from './values-read-back.ts';
import { startFraming } from './start-framing.ts';

export const backupChecks: Check[] = sharing(
  [BACKUPS],
  [startBackup, backupValuesReadBack, missingVm, restoreTask, startFraming]
);
