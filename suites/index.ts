import type { Check } from '../src/engine/run/check.ts';
import { authChecks } from './auth/index.ts';
import { vmChecks } from './vms/index.ts';
import { taskChecks } from './tasks/index.ts';
import { paginationChecks } from './pagination/index.ts';
import { backupChecks } from './backups/index.ts';
import { errorChecks } from './errors/index.ts';
import { versioningChecks } from './versioning/index.ts';
import { schemaChecks } from './schema/index.ts';
import { securityChecks } from './security/index.ts';
import { limitChecks } from './limits/index.ts';
import { webhookChecks } from './webhooks/index.ts';
import { alarmChecks } from './alarms/index.ts';
import { auditChecks } from './audit/index.ts';
import { s3Checks } from './s3/index.ts';

/** Every check of the suite, in report order. */
export const allChecks: Check[] = [
  ...authChecks,
  ...vmChecks,
  ...taskChecks,
  ...paginationChecks,
  ...backupChecks,
  ...errorChecks,
  ...versioningChecks,
  ...schemaChecks,
  ...securityChecks,
  ...limitChecks,
  ...webhookChecks,
  ...alarmChecks,
  ...auditChecks,
  ...s3Checks,
];
