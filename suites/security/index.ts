import type { Check } from '../../src/engine/run/check.ts';
import { readonlyWriteRefused } from './readonly-write-refused.ts';
import { readonlyStatus } from './readonly-status.ts';
import { crossOrgObjects } from './cross-org-objects.ts';
import { brokenAuth } from './broken-auth.ts';
import { oversizedBody } from './oversized-body.ts';
import { revokedKey } from './revoked-key.ts';
import { declaredRoles } from './declared-roles.ts';
import { crossOrgReference } from './cross-org-reference.ts';
import { keySecretHidden } from './key-secret-hidden.ts';

export const securityChecks: Check[] = [
  readonlyWriteRefused,
  readonlyStatus,
  crossOrgObjects,
  brokenAuth,
  oversizedBody,
  revokedKey,
  declaredRoles,
  crossOrgReference,
  keySecretHidden,
];
