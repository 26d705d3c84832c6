// The reference target (not the suite): protocol errors, and the faults of the errors and versioning checks.
import { afterAll, describe, expect, it } from 'vitest';
import { call, start, closeStarted } from './harness.ts';
import { tokenFor, vmBody } from './probes.ts';
import { describeFaults } from './faults/index.ts';

afterAll(closeStarted);

describe('protocol errors', () => {
  it('answers unknown paths, wrong methods, big and non-JSON bodies', async () => {
    const s = await start();
    const t = await tokenFor(s);
    for (const p of ['/v2/vms', '/v999/vms', '/vms', '/v1/nothing']) {
      const r = await call(s, 'GET', p, { token: t });
      expect(r.status, p).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const m = await call(s, 'PATCH', '/v1/vms', { token: t });
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toContain('POST');
    const big = await call(s, 'POST', '/v1/vms', {
      token: t,
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const media = await call(s, 'POST', '/v1/vms', {
      token: t,
      raw: JSON.stringify(vmBody(s)),
      headers: { 'content-type': 'text/plain' },
    });
    expect(media.status).toBe(415);
    const junk = await call(s, 'POST', '/v1/vms', { token: t, raw: '{nope' });
    expect(junk.status).toBe(400);
    expect(junk.body.error.code).toBe('invalid_request');
  });
});

describeFaults('errors', 'versioning');
