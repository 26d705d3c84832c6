// A target that runs one operation per VM at a time (variant vm-one-operation-at-a-time: a backup or restore while
// another task of the VM runs is refused 409), held to the reference's overlay: the checks that back up and restore the
// run's VM take turns on it, so none is refused because of the run's own operations (zoo: java-httpserver,
// node-fastify, python-stdlib).
import { describe, expect, it } from 'vitest';
import { REFERENCE_OVERLAY, notPassing, runAgainstReference, statusOf } from '../helpers.ts';

describe('one operation per VM at a time', () => {
  it("never refuses the run's own backups and restores for one another", async () => {
    const report = await runAgainstReference({
      variants: ['vm-one-operation-at-a-time'],
      overlay: REFERENCE_OVERLAY,
      only: ['backups', 'tasks', 'webhooks', 'errors'],
    });
    expect(notPassing(report)).toEqual([]);
    for (const id of [
      'backups.start',
      'backups.values-read-back',
      'backups.restore-task',
      'backups.start-framing',
      'tasks.long-running-operations',
      'webhooks.backup-event',
      'errors.declared-body-framing',
    ])
      expect(`${id} ${statusOf(report, id)}`).toBe(`${id} passed`);
  });
});
