import { describe, it, expect } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { runOptions } from '../../src/cli/options.ts';

/** A token of the reference at time scale 3600 (a lifetime of one real second), one and a half seconds old. */
async function expiredTokenRun(faults: string[]) {
  const target = await startReference({ port: 0, timeScale: 3600, faults });
  try {
    const s = target.settings;
    const res = await fetch(`${s.baseUrl}/v1/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: s.apiKey }),
    });
    const { token } = (await res.json()) as { token: string };
    await sleep(1500);
    const { report } = await runCommand(
      runOptions({
        baseUrl: s.baseUrl,
        apiKey: s.apiKey,
        image: s.image,
        subnetId: s.subnetId,
        timeScale: 3600,
        only: ['auth'],
        expiredToken: token,
      }),
      { name: 'cloud-api-conformance', version: 'test' },
      () => {}
    );
    return report.checks.find((c) => c.id === 'auth.token-expiry')!;
  } finally {
    await target.close();
  }
}

describe('--expired-token', () => {
  it('judges expiry at once: refused by the clean reference (AUTH-TOKEN-EXPIRY)', async () => {
    expect(await expiredTokenRun([])).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/--expired-token was refused/),
    });
  });

  it('fails the expiry check when the target accepts expired tokens', async () => {
    expect(await expiredTokenRun(['expiry-unenforced'])).toMatchObject({ status: 'failed' });
  });
});
