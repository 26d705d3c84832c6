// vms.quota-refusal (ERROR-QUOTA-EXCEEDED): a refusal a delete lifts is a quota and must say quota_exceeded, whatever its
// status; a refusal no delete lifts is not a quota and is never judged as one.
import { describe, expect, it } from 'vitest';
import { runAgainstReference, REFERENCE_OVERLAY, statusOf } from '../helpers.ts';
import { allChecks } from '../../suites/index.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { largestAccepted, quotaHowToVerify, roomRefusal } from '../../suites/vms/quota-refusal.ts';
import { QUOTA_PROBE_CREATES } from '../../src/engine/target/certify.ts';

const RUN = 'r1';
let seq = 0;
function create(
  name: string,
  status: number,
  opts: { sentBy?: string; caller?: string; type?: string; size?: number } = {}
): Exchange {
  return {
    seq: seq++,
    sentBy: opts.sentBy ?? 'setup',
    caller: opts.caller ?? 'primary',
    startedAt: '',
    durationMs: 1,
    request: {
      method: 'POST',
      url: 'http://t/v1/vms',
      headers: { 'content-type': opts.type ?? 'application/json' },
      body: JSON.stringify({ name, vcpus: opts.size ?? 1, image: 'i' }),
    },
    response: { status, headers: {}, body: '' },
  };
}

describe('which refusals of the run ask whether a quota was reached', () => {
  it.each([
    [
      'a standard create refused 403 after the same shape was accepted',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 403)],
      true,
    ],
    [
      'the same refused 422 (a quota may be answered 422)',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 422)],
      true,
    ],
    [
      'a refusal of a shape never accepted (validation)',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 400, { size: 2 })],
      false,
    ],
    [
      'a read-only key refused',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 403, { caller: 'readonly' })],
      false,
    ],
    [
      'another check varying the body on purpose',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 400, { sentBy: 'vms.create-robustness' })],
      false,
    ],
    [
      'a body in another media type',
      [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 403, { type: 'text/plain' })],
      false,
    ],
    ['a rate-limit refusal', [create(`cc-${RUN}-vm1`, 202), create(`cc-${RUN}-x`, 429)], false],
    ["another run's VM", [create('cc-other-vm1', 202), create('cc-other-x', 403)], false],
  ])('%s', (_, log, asks) => expect(roomRefusal(log, RUN, 'vms.quota-refusal') !== undefined).toBe(asks));
});

/** A create of the run with sizes, as the sized quota probe reads them from the log. */
function sized(name: string, status: number, sizes: Record<string, unknown>, caller = 'primary'): Exchange {
  const ex = create(name, status, { caller });
  ex.request.body = JSON.stringify({ name, image: 'i', subnet_id: 's', ...sizes });
  return ex;
}

describe('the largest VM the run had accepted, which certify creates where 60 standard VMs reached no quota', () => {
  const standard = { name: 'n', image: 'i', subnet_id: 's', vcpus: 1, memory_gb: 1, system_disk_gb: 20 };
  const large = { vcpus: 32, memory_gb: 256, system_disk_gb: 1000 };
  it('takes the sizes of the largest accepted create and keeps the rest of the standard body', () => {
    const log = [
      sized(`cc-${RUN}-a`, 202, { vcpus: 2, memory_gb: 4, system_disk_gb: 50 }),
      sized(`cc-${RUN}-b`, 202, large),
    ];
    expect(largestAccepted(log, RUN, standard)).toEqual({ ...standard, ...large });
  });
  it.each([
    ['a refused create', [sized(`cc-${RUN}-b`, 400, large)]],
    ["another key's create", [sized(`cc-${RUN}-b`, 202, large, 'second')]],
    ["another run's VM", [sized('cc-other-b', 202, large)]],
    ['sizes sent as strings (coercible, not sizes)', [sized(`cc-${RUN}-b`, 202, { ...large, vcpus: '32' })]],
    [
      'nothing larger than the standard VM',
      [sized(`cc-${RUN}-b`, 202, { vcpus: 1, memory_gb: 1, system_disk_gb: 20 })],
    ],
  ])('is none where the log holds only %s', (_, log) => expect(largestAccepted(log, RUN, standard)).toBeUndefined());
});

// Certify's quota probe makes at most QUOTA_PROBE_CREATES creates whatever --max-creates allows: a larger flag is what
// would verify it only where the flag cut the probe short, never after the probe made all its creates.
describe('what would verify a quota the probe did not reach', () => {
  it('certify, the probe made all its creates: an organization nearer its quota, never a larger --max-creates', () => {
    const how = quotaHowToVerify('certify', { sent: QUOTA_PROBE_CREATES });
    expect(how).not.toContain('--max-creates (');
    expect(how).toContain(`within ${QUOTA_PROBE_CREATES} VMs of its VM quota`);
    expect(how).toContain('whatever --max-creates allows');
  });

  it('certify, --max-creates left room for fewer: a larger --max-creates, saying how many it left of how many', () => {
    const how = quotaHowToVerify('certify', { sent: 12, cutByMaxCreates: { budget: 12, most: QUOTA_PROBE_CREATES } });
    expect(how).toMatch(
      new RegExp(`^a larger --max-creates \\(it left room for 12 of the ${QUOTA_PROBE_CREATES} creates`)
    );
  });

  it('other profiles: certify', () => {
    expect(quotaHowToVerify('quick', { sent: 1 })).toMatch(/^--profile certify/);
  });
});

describe('vms.quota-refusal against the reference', () => {
  it.each([
    ['vm-quota-low', 403],
    ['vm-quota-409', 409],
    ['vm-quota-422', 422],
    ['vm-quota-400', 400],
    ['vm-quota-429', 429],
  ])(
    'passes a quota answered %s (%s quota_exceeded, known by its code in quick too), lifted by a delete, one of three creates side by side taken',
    async (variant, status) => {
      const r = await runAgainstReference({ only: ['vms'], variants: [variant] });
      const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
      expect(c.status, c.message).toBe('passed');
      expect(c.message).toContain(`${status} quota_exceeded`);
      expect(c.message).toContain('3 creates sent side by side: 1 was accepted');
      expect(r.verdict).toBe('conformant');
    },
    120_000
  );

  it('waits for a VM still provisioning to take the delete, and leaves nothing behind (variants vm-delete-refused-while-provisioning, vm-quota-low)', async () => {
    const r = await runAgainstReference({
      only: ['vms'],
      variants: ['vm-quota-low', 'vm-delete-refused-while-provisioning'],
      timeScale: 60,
    });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status, c.message).toBe('passed');
    // At the quota again, the VM deleted is the one the lifting create just made: provisioning, so waited for.
    expect(c.message).toContain('the delete waited for its create task to end (the first delete answered 409)');
    expect(r.verdict).toBe('conformant');
    expect(
      r.ledger.entries.filter((e) => e.kind === 'vm' && e.cleanup !== 'deleted').map((e) => `${e.name}: ${e.note}`)
    ).toEqual([]);
  }, 120_000);

  // A race must not make a verdict flaky: each race fault three times, each time failed on the overrun.
  it.each(['quota-check-race', 'quota-counts-finished-only'])(
    'fails a quota overrun by creates side by side (fault %s), three runs out of three, with the delete, the creates and the counts as evidence',
    async (fault) => {
      for (let i = 0; i < 3; i++) {
        const r = await runAgainstReference({ only: ['vms'], faults: [fault], timeScale: 60 });
        const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
        expect(c.status, `run ${i + 1}: ${c.message}`).toBe('failed');
        expect(c.message).toMatch(
          /3 of 3 creates sent side by side were accepted once one VM was deleted at the quota/
        );
        expect(c.evidence?.exchanges?.map((e) => e.request.method).slice(0, 4)).toEqual([
          'DELETE',
          'POST',
          'POST',
          'POST',
        ]);
      }
    },
    240_000
  );

  it('fails a quota refused under another code when the VM to delete is still provisioning (fault quota-code-busy-delete)', async () => {
    const r = await runAgainstReference({ only: ['vms'], faults: ['quota-code-busy-delete'], timeScale: 60 });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status, c.message).toBe('failed');
    expect(c.message).toContain('"vm_limit_reached", not quota_exceeded');
  }, 120_000);

  it('fails a quota refused under another code (fault quota-code-other), with the refusal, the delete and the retry as evidence', async () => {
    const r = await runAgainstReference({ only: ['vms'], faults: ['quota-code-other'] });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status).toBe('failed');
    expect(c.message).toContain('"limit_exceeded", not quota_exceeded');
    expect(c.evidence?.exchanges?.map((e) => e.request.method)).toEqual(['POST', 'DELETE', 'POST']);
  });

  it('tells a quota answered 429 without its code from a rate limit by outlasting a rate window (variant vm-quota-429, full profile), and passes it', async () => {
    const r = await runAgainstReference({ only: ['vms'], variants: ['vm-quota-429'], profile: 'full', timeScale: 60 });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status, c.message).toBe('passed');
    expect(c.message).toContain('429 quota_exceeded');
    expect(r.verdict).toBe('conformant');
  }, 120_000);

  it('leaves a 429 without quota_exceeded to a valid create not verified in quick, saying which profile tells a quota from a rate limit', async () => {
    const r = await runAgainstReference({ only: ['vms'], faults: ['quota-429-resource-exhausted'] });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status, c.message).toBe('skipped');
    expect(c.message).toContain('a rate limit, or a quota answered 429');
  }, 120_000);

  it('fails a quota answered 429 resource_exhausted (fault quota-429-resource-exhausted): the refusal outlasted a window, and a delete lifted it', async () => {
    const r = await runAgainstReference({
      only: ['vms'],
      faults: ['quota-429-resource-exhausted'],
      profile: 'full',
      timeScale: 60,
    });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status).toBe('failed');
    expect(c.message).toContain('"resource_exhausted", not quota_exceeded');
    expect(c.evidence?.exchanges?.map((e) => `${e.request.method} ${e.response?.status}`)).toEqual([
      'POST 429',
      'DELETE 202',
      'POST 202',
    ]);
  }, 120_000);

  it('does not judge a refusal no delete lifts (variant capacity-refusal, reached by certify) as a quota', async () => {
    const r = await runAgainstReference({
      only: ['vms'],
      variants: ['capacity-refusal'],
      profile: 'certify',
      maxCreates: 120,
    });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status, c.message).toBe('skipped');
    expect(c.message).toContain('not a quota');
  }, 120_000);

  it('says what would verify it when the run reaches no quota (the reference: 500 VMs)', async () => {
    const r = await runAgainstReference({ only: ['vms'] });
    const c = r.checks.find((x) => x.id === 'vms.quota-refusal')!;
    expect(c.status).toBe('skipped');
    expect(c.howToVerify).toContain('--profile certify');
    expect(r.coverage?.notVerified.find((n) => n.clause === 'ERROR-QUOTA-EXCEEDED')?.blocking).toBe(false);
  });
});

describe('certify under a quota near at hand (variant small-org-quota: 45 VMs, quota 60)', () => {
  it("makes the run's own VM first, gives population VMs back to the checks, and starves no check (the input-class checks stand aside, saying why)", async () => {
    const groups = [...new Set(allChecks.map((c) => c.group))].filter((g) => g !== 'limits');
    const r = await runAgainstReference({
      profile: 'certify',
      overlay: REFERENCE_OVERLAY,
      timeScale: 60,
      only: groups,
      variants: ['small-org-quota'],
    });
    const plan = r.observations?.['certifyPlan'] as { deleted: number; note: string } | undefined;
    expect(plan?.deleted, plan?.note).toBeGreaterThan(0);
    // The room certify gives back (14 VMs here) is all the checks' own creates need: the input-class checks, which would
    // take most of it, stand aside and say why; every other check passes.
    const standAside = ['vms.name-classes', 'vms.tag-value-classes'];
    expect(
      r.checks
        .filter((c) => c.status !== 'passed' && !c.undeclared && !standAside.includes(c.id))
        .map((c) => `${c.id}: ${c.message}`)
    ).toEqual([]);
    for (const id of standAside) {
      const c = r.checks.find((x) => x.id === id)!;
      expect(c.status, c.message).toBe('skipped');
      expect(c.message).toMatch(
        /^filling the list met the organization's VM quota \(POST \/v1\/vms → 403\) and certify gave back the room of \d+ VMs/
      );
    }
    expect(statusOf(r, 'vms.quota-refusal')).toBe('passed');
    // What the input-class checks would have verified is open, and certify says so; nothing else is.
    const open = (r.coverage?.notVerified ?? []).filter(
      (n) => n.blocking && !n.reason.startsWith('group limits was not selected')
    );
    expect(open.filter((n) => !standAside.includes(n.check)).map((n) => `${n.clause} ${n.check}: ${n.reason}`)).toEqual(
      []
    );
    expect(open.map((n) => `${n.clause} ${n.check}`).sort()).toEqual([
      'TAG-FILTER vms.tag-value-classes',
      'VM-CREATE vms.name-classes',
      'VM-CREATE-FIELDS vms.name-classes',
    ]);
  }, 300_000);
});
