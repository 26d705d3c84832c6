// Fault probes of the security checks' faults: each observation on a clean target and on one with only that fault.
import { call } from '../harness.ts';
import { tokenFor, sleep, firstVm, alarm, vmBody, createVm, issue } from '../probes.ts';
import type { FaultCase } from './index.ts';

export const faults: FaultCase[] = [
  {
    name: 'api-key-echoed',
    probe: async (s) => {
      const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
      return [r.status, JSON.stringify(r.body).includes(s.apiKey)];
    },
    clean: [200, false],
    faulty: [200, true],
  },
  {
    name: 'foreign-subnet-accepted',
    probe: async (s) =>
      (await call(s, 'POST', '/v1/vms', { token: await tokenFor(s), json: vmBody(s, { subnet_id: s.subnetIdB }) }))
        .status,
    clean: 400,
    faulty: 202,
  },
  {
    name: 'cross-org-task-visible',
    probe: async (s) => {
      const a = await tokenFor(s);
      const created = await createVm(s, a);
      const b = await tokenFor(s, s.apiKeyB);
      return (await call(s, 'GET', `/v1/tasks/${created.body.task_id}`, { token: b })).status;
    },
    clean: 404,
    faulty: 200,
  },
  {
    name: 'cross-org-refusal-names-vm',
    probe: async (s) => {
      const a = await tokenFor(s);
      const created = await createVm(s, a);
      const b = await tokenFor(s, s.apiKeyB);
      const r = await call(s, 'POST', `/v1/vms/${created.body.vm_id}/backups`, {
        token: b,
        json: { description: 'x' },
      });
      return [r.status, r.text.includes('test-vm')];
    },
    clean: [404, false],
    faulty: [404, true],
  },
  {
    name: 'readonly-401',
    probe: async (s) => (await createVm(s, await tokenFor(s, s.apiKeyReadonly))).status,
    clean: 403,
    faulty: 401,
  },
  {
    name: 'api-key-as-bearer-accepted',
    probe: async (s) => (await call(s, 'GET', '/v1/vms', { token: s.apiKey })).status,
    clean: 401,
    faulty: 200,
  },
  {
    name: 'oversized-token-body-500',
    probe: async (s) => [
      (await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: 'x'.repeat(2 * 1024 * 1024) } })).status,
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
        })
      ).status,
    ],
    clean: [413, 413],
    faulty: [500, 413],
  },
  {
    name: 'oversized-body-500',
    probe: async (s) =>
      (
        await call(s, 'POST', '/v1/vms', {
          token: await tokenFor(s),
          json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
        })
      ).status,
    clean: 413,
    faulty: 500,
  },
  {
    name: 'oversized-body-stalls',
    // A 2 MiB body, and whether an answer came within 2 s (the stalled server neither reads on nor answers).
    probe: async (s) => {
      const t = await tokenFor(s);
      const answered = call(s, 'POST', '/v1/vms', {
        token: t,
        json: { ...vmBody(s), name: 'x'.repeat(2 * 1024 * 1024) },
      }).then(
        (r) => r.status,
        () => 'no answer'
      );
      return Promise.race([answered, new Promise((r) => setTimeout(() => r('no answer within 2 s'), 2000))]);
    },
    clean: 413,
    faulty: 'no answer within 2 s',
  },
  {
    name: 'revocation-ignored',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [revoked.status, (await call(s, 'GET', '/v1/vms', { token: t })).status];
    },
    clean: [200, 401],
    faulty: [200, 200],
  },
  {
    name: 'readonly-can-write',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyReadonly);
      return [(await createVm(s, t)).status, (await call(s, 'DELETE', '/v1/vms/vm-100001', { token: t })).status];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  // Designs of the second overlay, each under the variant whose design it breaks.
  {
    name: 'revoked-key-reissues',
    variants: ['revoke-by-id'],
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const key = await call(s, 'GET', '/v1/api-keys/current', { token: t });
      const revoked = await call(s, 'DELETE', `/v1/api-keys/${key.body.id}`, { token: t });
      const old = await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      const reissued = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKeyRevocable } });
      return [revoked.status, old.status, reissued.status];
    },
    clean: [200, 401, 401],
    faulty: [200, 401, 200],
  },
  {
    name: 'revoke-by-id-no-effect',
    variants: ['revoke-by-token-claim'],
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      // The key's id is only in its token: the JWT's sub.
      const id = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString('utf8')).sub;
      const revoked = await call(s, 'DELETE', `/v1/api-keys/${id}`, { token: t });
      const old = await call(s, 'GET', '/v1/vms?per_page=1', { token: t });
      return [revoked.status, old.status];
    },
    clean: [200, 401],
    faulty: [200, 200],
  },
  // The faults of the fault model (spec/clauses.yaml faults:).
  {
    name: 'token-in-query-accepted',
    probe: async (s) => {
      const t = await tokenFor(s);
      return [
        (await call(s, 'GET', `/v1/vms?access_token=${t}`)).status,
        (await call(s, 'GET', `/v1/vms?token=${t}`)).status,
        (await call(s, 'GET', '/v1/vms?access_token=garbage')).status,
      ];
    },
    clean: [401, 401, 401],
    faulty: [200, 200, 401],
  },
  {
    name: 'readonly-can-delete-backup',
    probe: async (s) => {
      const t = await tokenFor(s);
      const started = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, {
        token: t,
        json: { description: 'b' },
      });
      const reader = await tokenFor(s, s.apiKeyReadonly);
      return (await call(s, 'DELETE', `/v1/backups/${started.body.backup_id ?? started.body.id}`, { token: reader }))
        .status;
    },
    clean: 403,
    faulty: 200,
  },
  {
    name: 'revoked-token-cached-on-object-reads',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const task = (await createVm(s, await tokenFor(s))).body.task_id as string;
      await call(s, 'GET', '/v1/vms', { token: t });
      await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        (await call(s, 'GET', `/v1/tasks/${task}`, { token: t })).status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
      ];
    },
    clean: [401, 401],
    faulty: [200, 401],
  },
  {
    name: 'readonly-can-delete-vm',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return (await call(s, 'DELETE', `/v1/vms/${vm}`, { token: await tokenFor(s, s.apiKeyReadonly) })).status;
    },
    clean: 403,
    faulty: 202,
  },
  {
    name: 'readonly-can-delete-alarm',
    probe: async (s) => {
      const made = await alarm(s, await tokenFor(s), 99);
      return (await call(s, 'DELETE', `/v1/alarms/${made.body.id}`, { token: await tokenFor(s, s.apiKeyReadonly) }))
        .status;
    },
    clean: 403,
    faulty: 200,
  },
  {
    name: 'readonly-can-create-alarm',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      return (
        await call(s, 'POST', '/v1/alarms', {
          token: await tokenFor(s, s.apiKeyReadonly),
          json: { vm_id: vm, metric: 'cpu_utilization', comparison: 'gt', threshold: 99 },
        })
      ).status;
    },
    clean: 403,
    faulty: 201,
  },
  {
    name: 'audit-open-to-every-role',
    variants: ['audit-operator-only'],
    probe: async (s) => {
      const viewer = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'GET', '/v1/audit', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit/export', { token: viewer })).status,
        (await call(s, 'GET', '/v1/audit', { token: await tokenFor(s) })).status,
      ];
    },
    clean: [403, 403, 200],
    faulty: [200, 200, 200],
  },
  {
    name: 'webhook-reads-refused-to-viewer',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/webhooks', { token: await tokenFor(s, s.apiKeyReadonly) })).status,
      (await call(s, 'GET', '/v1/webhooks', { token: await tokenFor(s) })).status,
    ],
    clean: [200, 200],
    faulty: [403, 200],
  },
  {
    name: 'readonly-can-backup',
    probe: async (s) => {
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', `/v1/vms/${await firstVm(s, ro)}/backups`, { token: ro, json: { description: 'x' } }))
          .status,
        (await createVm(s, ro)).status,
      ];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  {
    name: 'readonly-can-restore',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const b = await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} });
      await sleep(40);
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', `/v1/backups/${b.body.backup_id}/restore`, { token: ro, json: {} })).status,
        (await call(s, 'POST', `/v1/vms/${await firstVm(s, ro)}/backups`, { token: ro, json: {} })).status,
      ];
    },
    clean: [403, 403],
    faulty: [202, 403],
  },
  {
    name: 'readonly-can-register-webhook',
    probe: async (s) => {
      const ro = await tokenFor(s, s.apiKeyReadonly);
      return [
        (
          await call(s, 'POST', '/v1/webhooks', {
            token: ro,
            json: { url: 'http://127.0.0.1:9/hook', events: ['backup.completed'] },
          })
        ).status,
        (await createVm(s, ro)).status,
      ];
    },
    clean: [403, 403],
    faulty: [201, 403],
  },
  {
    name: 'cross-org-backup-accepted',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'POST', `/v1/vms/${vm}/backups`, { token: b, json: { description: 'x' } })).status,
        (await call(s, 'POST', '/v1/vms/vm-missing/backups', { token: b, json: { description: 'x' } })).status,
      ];
    },
    clean: [404, 404],
    faulty: [202, 404],
  },
  {
    name: 'readonly-delete-404',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const r = await tokenFor(s, s.apiKeyReadonly);
      return [
        (await call(s, 'POST', '/v1/vms', { token: r, json: vmBody(s) })).status,
        (await call(s, 'DELETE', `/v1/vms/${vm}`, { token: r })).status,
      ];
    },
    clean: [403, 403],
    faulty: [403, 404],
  },
  {
    name: 'cross-org-backup-readable',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s);
      const backup = (await call(s, 'POST', `/v1/vms/${await firstVm(s, t)}/backups`, { token: t, json: {} })).body
        .backup_id;
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'GET', `/v1/backups/${backup}`, { token: t })).status,
        (await call(s, 'GET', `/v1/backups/${backup}`, { token: b })).status,
      ];
    },
    clean: [200, 404],
    faulty: [200, 200],
  },
  {
    name: 'cross-org-vm-readable',
    probe: async (s) => {
      const vm = await firstVm(s, await tokenFor(s));
      const b = await tokenFor(s, s.apiKeyB);
      return [
        (await call(s, 'GET', `/v1/vms/${vm}`, { token: b })).status,
        (await call(s, 'GET', '/v1/vms/vm-missing', { token: b })).status,
      ];
    },
    clean: [404, 404],
    faulty: [200, 404],
  },
  {
    name: 'vm-list-all-orgs',
    probe: async (s) => [
      (await call(s, 'GET', '/v1/vms', { token: await tokenFor(s, s.apiKeyB) })).body.total,
      (await call(s, 'GET', '/v1/vms', { token: await tokenFor(s) })).body.total,
    ],
    clean: [3, 130],
    faulty: [133, 133],
  },
  {
    name: 'revocation-delayed',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        revoked.status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await issue(s, s.apiKeyRevocable)).status,
      ];
    },
    clean: [200, 401, 401],
    faulty: [200, 200, 200],
  },
  {
    name: 'revocation-new-tokens-only',
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      return [
        revoked.status,
        (await call(s, 'GET', '/v1/vms', { token: t })).status,
        (await issue(s, s.apiKeyRevocable)).status,
      ];
    },
    clean: [200, 401, 401],
    faulty: [200, 200, 401],
  },
  {
    name: 'revocation-old-tokens-only',
    timeScale: 100,
    probe: async (s) => {
      const t = await tokenFor(s, s.apiKeyRevocable);
      await sleep(30); // the token's second ends before the revocation
      const revoked = await call(s, 'DELETE', '/v1/api-keys/current', { token: t });
      const again = await issue(s, s.apiKeyRevocable);
      const works =
        again.status === 200 ? (await call(s, 'GET', '/v1/vms', { token: again.body.token })).status : undefined;
      return [revoked.status, (await call(s, 'GET', '/v1/vms', { token: t })).status, again.status, works];
    },
    clean: [200, 401, 401, undefined],
    faulty: [200, 401, 200, 200],
  },
];
