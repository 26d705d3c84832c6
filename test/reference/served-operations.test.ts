// The reference target's operations beyond the seed's document, as the suite's registry of served operations finds
// them (the Allow of an OPTIONS answer). The faults on them are probed with their checks' groups
// (faults/served-operations.ts, taken by faults/auth.ts, limits.ts and errors.ts).
import { afterAll, describe, expect, it } from 'vitest';
import type { ReferenceSettings } from '../../fixtures/reference/server.ts';
import { call, closeStarted, start } from './harness.ts';

afterAll(closeStarted);

async function tokenFor(s: ReferenceSettings): Promise<string> {
  const r = await call(s, 'POST', '/v1/auth/tokens', { json: { api_key: s.apiKey } });
  expect(r.status).toBe(200);
  return r.body.token;
}

describe('what the registry of served operations reads', () => {
  it('answers OPTIONS on a VM that does not exist 405 with the methods of the VM item route in Allow', async () => {
    const s = await start();
    const t = await tokenFor(s);
    const r = await call(s, 'OPTIONS', '/v1/vms/cc-absent', { token: t });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'DELETE']));
    expect(r.body.error.code).toBe('method_not_allowed');
  });
});
