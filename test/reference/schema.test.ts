// The reference target (not the suite): the faults of the schema checks.
import { afterAll } from 'vitest';
import { closeStarted } from './harness.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describeFaults('schema');
