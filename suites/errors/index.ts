import type { Check } from '../../src/engine/run/check.ts';
import { errorObject } from './error-object.ts';
import { jsonResponses } from './json-responses.ts';
import { malformedJson } from './malformed-json.ts';
import { oddPathIds } from './odd-path-ids.ts';
import { pathShapes } from './path-shapes.ts';
import { completeAnswers } from './complete-answers.ts';
import { allowOn405 } from './allow-on-405.ts';
import { invalidInputs } from './invalid-inputs.ts';
import { declaredBodyFraming } from './declared-body-framing.ts';

export const errorChecks: Check[] = [
  malformedJson,
  oddPathIds,
  pathShapes,
  invalidInputs,
  errorObject,
  jsonResponses,
  completeAnswers,
  allowOn405,
  declaredBodyFraming,
];
