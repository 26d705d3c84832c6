import { describe, it, expect } from 'vitest';
import { runAgainstReference, notPassing } from '../helpers.ts';

describe('the full profile', () => {
  it('outlives the token lifetime: tokens pooled by the issuance probe are never handed out expired', async () => {
    // At scale 3600 a token lives one real second; the expiry check waits it out after the probes filled the pool.
    const report = await runAgainstReference({
      profile: 'full',
      timeScale: 3600,
      only: ['limits', 'auth', 'vms', 'tasks'],
    });
    expect(notPassing(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'auth.token-expiry')?.status).toBe('passed');
  });
});
