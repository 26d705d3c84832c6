// The fault probes, one module per group of the suite's checks (the group of the check each fault must make fail):
// each fault is probed on a clean target and on a target with only that fault, and the observations must differ as
// described. A test file of this folder runs its groups' probes with describeFaults; options.test.ts holds every
// catalogued fault to a probe here, in the module of its check's group, run by some test file.
import { describe, expect, it } from 'vitest';
import type { ReferenceSettings } from '../../../fixtures/reference/server.ts';
import { start } from '../harness.ts';
import { faults as alarms } from './alarms.ts';
import { faults as audit } from './audit.ts';
import { faults as auth } from './auth.ts';
import { faults as backups } from './backups.ts';
import { faults as errors } from './errors.ts';
import { faults as limits } from './limits.ts';
import { faults as pagination } from './pagination.ts';
import { faults as schema } from './schema.ts';
import { faults as security } from './security.ts';
import { faults as tasks } from './tasks.ts';
import { faults as versioning } from './versioning.ts';
import { faults as vms } from './vms.ts';
import { faults as webhooks } from './webhooks.ts';

export interface FaultCase {
  name: string;
  timeScale?: number;
  /** Conforming variants both targets run under (the faults of the second overlay's designs need theirs). */
  variants?: string[];
  probe: (s: ReferenceSettings) => Promise<unknown>;
  clean: unknown;
  faulty: unknown;
}

export const FAULT_CASES = {
  alarms,
  audit,
  auth,
  backups,
  errors,
  limits,
  pagination,
  schema,
  security,
  tasks,
  versioning,
  vms,
  webhooks,
} satisfies Record<string, FaultCase[]>;

/** Registers the fault probes of these groups, as the test "faults > <name> changes only the described behaviour". */
export function describeFaults(...groups: Array<keyof typeof FAULT_CASES>): void {
  describe('faults', () => {
    it.each(groups.flatMap((g) => FAULT_CASES[g]))(
      '$name changes only the described behaviour',
      async (c) => {
        const clean = await start({ timeScale: c.timeScale, variants: c.variants });
        const faulty = await start({ timeScale: c.timeScale, variants: c.variants, faults: [c.name] });
        expect(await c.probe(clean)).toEqual(c.clean);
        expect(await c.probe(faulty)).toEqual(c.faulty);
      },
      30_000
    );
  });
}
