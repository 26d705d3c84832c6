import type { Check } from '../../src/engine/run/check.ts';
import { tokenLimit } from './token-limit.ts';
import { readLimit } from './read-limit.ts';
import { writeLimit } from './write-limit.ts';
import { tokenScope } from './token-scope.ts';
import { keyScope } from './key-scope.ts';
import { rejectionErrorObject } from './rejection-error-object.ts';
import { retryAfter } from './retry-after.ts';
import { windowResets } from './window-resets.ts';
import { windowLength } from './window-length.ts';
import { budgetsSeparate } from './budgets-separate.ts';
import { readLimitSubjects } from './read-limit-subjects.ts';
import { writeLimitSubjects } from './write-limit-subjects.ts';
import { readLimitOperations } from './read-limit-operations.ts';
import { writeLimitOperations } from './write-limit-operations.ts';

export const limitChecks: Check[] = [
  tokenLimit,
  readLimit,
  readLimitSubjects,
  readLimitOperations,
  writeLimit,
  writeLimitSubjects,
  writeLimitOperations,
  tokenScope,
  keyScope,
  budgetsSeparate,
  rejectionErrorObject,
  retryAfter,
  windowResets,
  windowLength,
];
