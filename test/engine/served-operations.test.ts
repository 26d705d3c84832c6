// The registry of the operations a target serves: the document's and the overlay's, the methods an Allow lists on the
// document's paths and the collections' item paths (ids that exist nowhere), the conventional VM delete, each with why.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load.ts';
import type { CallOptions } from '../../src/engine/identity/call.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import type { OperationsRecord } from '../../src/engine/outcome/observations.ts';
import { Unavailable } from '../../src/engine/outcome/outcome.ts';
import {
  ServedOperations,
  absentPath,
  matchesTemplate,
  probedPaths,
} from '../../src/engine/target/served-operations.ts';

const RUN = 'r1';

/** An answer to an OPTIONS request: a status, and an Allow header where given. */
function answer(opts: CallOptions, status: number, allow?: string): Exchange {
  return {
    seq: 0,
    sentBy: 'operations',
    request: { method: opts.method, url: `http://target.invalid${opts.path}`, headers: {} },
    response: { status, headers: allow === undefined ? {} : { allow }, body: '' },
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
  };
}

/** A target answering OPTIONS from a table of paths (what is not in it: 404); the requests it got. */
function target(table: Record<string, [number, string?]>) {
  const asked: CallOptions[] = [];
  const call = (opts: CallOptions) => {
    asked.push(opts);
    const [status, allow] = table[opts.path] ?? [404];
    return Promise.resolve(answer(opts, status, allow));
  };
  return { asked, call };
}

const VM_ITEM = absentPath('/v1/vms/{id}', RUN);

describe('the registry of served operations', () => {
  it('asks about the document paths and the item path of each collection, once each, with ids that exist nowhere', async () => {
    const spec = await loadSpec();
    const { asked, call } = target({});
    const registry = new ServedOperations(spec, call, RUN, undefined);
    await Promise.all([registry.all(), registry.all()]);
    expect(asked.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      [
        'OPTIONS /v1/vms',
        `OPTIONS ${VM_ITEM}`,
        `OPTIONS ${absentPath('/v1/vms/{id}/backups', RUN)}`,
        `OPTIONS ${absentPath('/v1/tasks/{id}', RUN)}`,
      ].sort()
    );
    expect(VM_ITEM).toBe('/v1/vms/cc-r1-absent-vm');
    // Token issuance is public and never asked about.
    expect(probedPaths(registry.documented())).not.toContain('/v1/auth/tokens');
  });

  it('adds what an Allow lists, marked with the answer; passes over a write on a collection; records it all', async () => {
    const spec = await loadSpec();
    const { call } = target({
      [VM_ITEM]: [405, 'GET, DELETE, PUT, HEAD'],
      '/v1/vms': [204, 'GET, POST, DELETE, OPTIONS'],
      // Allow on a refusal of the caller says nothing of the resource.
      [absentPath('/v1/tasks/{id}', RUN)]: [401, 'GET, DELETE'],
    });
    const records: OperationsRecord[] = [];
    const registry = new ServedOperations(spec, call, RUN, undefined, (r) => records.push(r));
    const ops = await registry.all();
    const discovered = ops.filter((o) => o.source !== 'document' && o.source !== 'overlay');
    expect(discovered.map((o) => [o.operationId, o.source, o.shown, o.takesBody])).toEqual([
      ['GET /v1/vms/{id}', 'allow', true, false],
      ['DELETE /v1/vms/{id}', 'allow', true, false],
    ]);
    expect(discovered[1]!.why).toBe(
      'listed by Allow: OPTIONS /v1/vms/{id} (ids that exist nowhere) → 405, Allow: GET, DELETE, PUT, HEAD'
    );
    expect(records).toHaveLength(1);
    expect(records[0]!.passedOver).toEqual(
      expect.arrayContaining([
        { operation: 'PUT /v1/vms/{id}', why: expect.stringContaining('a PUT may create what its path names') },
        { operation: 'DELETE /v1/vms', why: expect.stringContaining('a write on a collection is never sent') },
      ])
    );
    expect(records[0]!.passedOver).toHaveLength(2);
    expect(records[0]!.operations.map((o) => o.operation)).toContain('POST /v1/vms/{id}/backups');
    expect((await registry.vmDelete())?.source).toBe('allow');
    expect(registry.operationFor('DELETE', '/v1/vms/vm-7')?.operationId).toBe('DELETE /v1/vms/{id}');
    expect(registry.operationFor('POST', '/v1/vms/vm-7/backups')?.operationId).toBe('startBackup');
  });

  it('keeps the conventional VM delete, not shown, when no answer lists it, and none when the overlay declares one', async () => {
    const spec = await loadSpec();
    const bare = new ServedOperations(spec, target({}).call, RUN, undefined);
    const del = await bare.vmDelete();
    expect([del?.operationId, del?.source, del?.shown]).toEqual(['DELETE /v1/vms/{id}', 'conventional', false]);

    const withOverlay = await loadSpec('spec/overlays/reference.yaml');
    const declared = new ServedOperations(withOverlay, target({}).call, RUN, {
      method: 'DELETE',
      path: '/v1/vms/{id}',
    });
    const found = await declared.vmDelete();
    expect([found?.operationId, found?.source, found?.shown]).toEqual(['deleteVm', 'overlay', true]);
    expect((await declared.all()).filter((o) => o.source === 'conventional')).toEqual([]);
  });

  it('marks the overlay operations apart from the seed-derived document, and knows them before any request', async () => {
    const spec = await loadSpec('spec/overlays/reference.yaml');
    const { asked, call } = target({});
    const registry = new ServedOperations(spec, call, RUN, undefined);
    const known = registry.known();
    expect(asked).toEqual([]);
    expect(known.find((o) => o.operationId === 'createVm')?.source).toBe('document');
    expect(known.find((o) => o.operationId === 'deleteBackup')?.source).toBe('overlay');
    // Key revocation is never asked about (a revocation ends the run).
    await registry.all();
    expect(asked.some((o) => /api-keys/.test(o.path))).toBe(false);
  });

  it('discovers nothing where OPTIONS may not be sent, and lets any other error through', async () => {
    const spec = await loadSpec();
    const refused = new ServedOperations(spec, () => Promise.reject(new Unavailable('--read-only')), RUN, undefined);
    expect((await refused.all()).filter((o) => o.source === 'allow')).toEqual([]);
    const broken = new ServedOperations(spec, () => Promise.reject(new Error('no token')), RUN, undefined);
    await expect(broken.all()).rejects.toThrow('no token');
  });

  it('matches a request path to a template segment by segment, a parameter never empty', () => {
    expect(matchesTemplate('/v1/vms/{id}', '/v1/vms/vm-1')).toBe(true);
    expect(matchesTemplate('/v1/vms/{id}', '/v1/vms/')).toBe(false);
    expect(matchesTemplate('/v1/vms/{id}', '/v1/vms/vm-1/backups')).toBe(false);
  });
});
