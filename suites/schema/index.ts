import type { Check } from '../../src/engine/run/check.ts';
import { timestampsUtc } from './timestamps-utc.ts';
import { declaredResponses } from './declared-responses.ts';
import { declaredChoices } from './declared-choices.ts';

export const schemaChecks: Check[] = [timestampsUtc, declaredResponses, declaredChoices];
