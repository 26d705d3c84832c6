import type { Check } from '../../src/engine/check.ts';
import { createReturnsTask } from './create-returns-task.ts';
import { createdListed } from './created-listed.ts';
import { listShape } from './list-shape.ts';
import { tagFilter } from './tag-filter.ts';
import { createWrongTypes } from './create-wrong-types.ts';

export const vmChecks: Check[] = [createReturnsTask, createdListed, listShape, tagFilter, createWrongTypes];
