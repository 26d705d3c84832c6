// Every accepted create is held to the create's whole contract, whichever check sent it: the fields a target shows
// optional are left out in valid creates, those creates' tasks are judged like any other, and the classes judged are
// the clause's domain (a class the target refused every time is its choice, out of reach, never "partly verified").
import { beforeAll, describe, expect, it } from 'vitest';
import { runAgainstReference } from '../helpers.ts';
import type { RunReport } from '../../src/engine/run/report.ts';

const ABSENT = ['vcpus:absent', 'memory_gb:absent', 'image:absent', 'system_disk_gb:absent', 'subnet_id:absent'];

let clean: RunReport;
let nameOnly: RunReport;
beforeAll(async () => {
  [clean, nameOnly] = await Promise.all([
    runAgainstReference({ only: ['vms', 'tasks'] }),
    runAgainstReference({ only: ['vms', 'tasks'], variants: ['create-name-only-required'] }),
  ]);
}, 180_000);

const check = (r: RunReport, id: string) => r.checks.find((c) => c.id === id)!;
const taskIdDomain = (r: RunReport) => r.coverage!.domains!.find((d) => d.clause === 'TASK-ID-CREATE-VM')!;

describe('creates that leave out the fields a target shows optional', () => {
  it('learns every field optional where the target defaults them, and holds those creates to the task contract', () => {
    expect(check(nameOnly, 'vms.create-optional-fields').status).toBe('passed');
    expect(nameOnly.observations['createOptionalFields']).toEqual({
      optional: ['vcpus', 'memory_gb', 'image', 'system_disk_gb', 'subnet_id'],
      required: [],
    });
    const every = check(nameOnly, 'vms.every-create-task');
    expect(every.status, every.message).toBe('passed');
    for (const cls of [
      'vcpus:absent',
      'system_disk_gb:absent',
      'without vcpus, memory_gb, image, system_disk_gb, subnet_id',
    ])
      expect(every.message).toContain(cls);
    expect(check(nameOnly, 'tasks.every-task-completes').message).toContain('system_disk_gb:absent');
    expect(taskIdDomain(nameOnly).exercised.values).toEqual(expect.arrayContaining(ABSENT));
  });

  it('learns them required where the target refuses them, and says those classes are out of reach, not partly verified', () => {
    expect(clean.observations['createOptionalFields']).toEqual({
      optional: [],
      required: ['vcpus', 'memory_gb', 'image', 'system_disk_gb', 'subnet_id'],
    });
    const domain = taskIdDomain(clean);
    expect(domain.exercised.values).toEqual(expect.arrayContaining(['vcpus:smallest', 'vcpus:middle', 'vcpus:large']));
    const absent = domain.missing.filter((m) => ABSENT.includes(m.point));
    expect(absent.map((m) => [m.point, m.possible])).toEqual(ABSENT.map((a) => [a, false]));
    expect(absent[0]!.reason).toMatch(/the target refused every request with/);
    expect(clean.coverage!.partlyVerified).not.toContain('TASK-ID-CREATE-VM');
  });

  it("judges every other accepted create's task, the second organization's with its own key", () => {
    const every = check(clean, 'vms.every-create-task');
    expect(every.status, every.message).toBe('passed');
    expect(every.message).toMatch(/vcpus:large/);
    expect(every.message).toMatch(/\(second key\)/);
    const completes = check(clean, 'tasks.every-task-completes');
    expect(completes.status, completes.message).toBe('passed');
    expect(completes.message).toMatch(/tasks of accepted requests in \d+ class groups .* reached a terminal state/);
  });
});
