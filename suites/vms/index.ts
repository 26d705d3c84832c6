import type { Check } from '../../src/engine/run/check.ts';
import { createReturnsTask } from './create-returns-task.ts';
import { everyCreateTask } from './every-create-task.ts';
import { createdListed } from './created-listed.ts';
import { listShape } from './list-shape.ts';
import { tagFilter } from './tag-filter.ts';
import { tagFilterStrict } from './tag-filter-strict.ts';
import { tagFilterSemantics } from './tag-filter-semantics.ts';
import { createWrongTypes } from './create-wrong-types.ts';
import { createOptionalFields } from './create-optional-fields.ts';
import { createConventions } from './create-conventions.ts';
import { createRobustness } from './create-robustness.ts';
import { listCoverage } from './list-coverage.ts';
import { createFuzz } from './create-fuzz.ts';
import { stateful } from './stateful.ts';
import { createDeclaredValid } from './create-declared-valid.ts';
import { listFuzz } from './list-fuzz.ts';
import { quotaRefusal } from './quota-refusal.ts';
import { valuesReadBack } from './values-read-back.ts';
import { nameClasses } from './name-classes.ts';
import { tagValueClasses } from './tag-value-classes.ts';
import { createSecondOrganization } from './create-second-organization.ts';

// The creates first: they run while the run's VM is being made, and the list checks after them find the list at rest;
// the generated list queries come after the stateful sequences, beside the pagination checks that only read too. The
// review of every accepted create's task reviews the log after the quota probe's, so it sees the probe's creates too.
export const vmChecks: Check[] = [
  createReturnsTask,
  createWrongTypes,
  createOptionalFields,
  createConventions,
  createRobustness,
  createFuzz,
  createDeclaredValid,
  createdListed,
  valuesReadBack,
  nameClasses,
  tagValueClasses,
  createSecondOrganization,
  listShape,
  tagFilter,
  tagFilterStrict,
  tagFilterSemantics,
  listCoverage,
  stateful,
  listFuzz,
  quotaRefusal,
  everyCreateTask,
];
