import type { Check } from '../../src/engine/check.ts';
import { timestampsUtc } from './timestamps-utc.ts';
import { declaredResponses } from './declared-responses.ts';

export const schemaChecks: Check[] = [timestampsUtc, declaredResponses];
