import type { Check } from '../../src/engine/check.ts';
import { errorObject } from './error-object.ts';
import { jsonResponses } from './json-responses.ts';
import { malformedJson } from './malformed-json.ts';

export const errorChecks: Check[] = [malformedJson, errorObject, jsonResponses];
