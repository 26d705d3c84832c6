import { describe, it, expect } from 'vitest';
import { referenceArgs, startReferenceProcess } from '../../fixtures/reference/process.ts';

// certify serves the embedded reference from a process of its own (src/cli/run.ts): it must start, answer, pass on
// faults and variants, stop when asked, and turn a bad start into its own one-line error.
describe('the reference target in a process of its own (fixtures/reference/process.ts)', () => {
  it('passes the time scale, faults and variants as the reference command takes them', () => {
    expect(
      referenceArgs({ timeScale: 60, faults: ['a', 'b'], variants: ['v'], s3Faults: ['s'], s3Variants: ['w'] })
    ).toEqual([
      'reference',
      '--port',
      '0',
      '--time-scale',
      '60',
      '--fault',
      'a',
      '--fault',
      'b',
      '--variant',
      'v',
      '--s3-fault',
      's',
      '--s3-variant',
      'w',
    ]);
  });

  it('starts, issues a token, serves its S3 endpoint, and is gone once closed', async () => {
    const target = await startReferenceProcess({ timeScale: 60 });
    let closed = false;
    try {
      const { baseUrl, apiKey, s3Url } = target.settings;
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(s3Url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const token = await fetch(`${baseUrl}/v1/auth/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: apiKey }),
      });
      expect(token.status).toBe(200);
      expect(((await token.json()) as { expires_in: number }).expires_in).toBe(3600);
      await target.close();
      closed = true;
      await expect(fetch(`${baseUrl}/v1/vms`)).rejects.toThrow();
    } finally {
      if (!closed) await target.close();
    }
  }, 90_000);

  it("rejects with the reference command's own message when it cannot start", async () => {
    await expect(startReferenceProcess({ faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault/);
  }, 90_000);
});
