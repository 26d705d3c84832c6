// Keys are shared: with the run just before, another pipeline, a person. A probe of a per-key budget that counts
// refusals in a window others may have used is no evidence against the target. Three quick runs back to back against
// one reference, the second and third right after another client exchanged the same key, are each conformant: the issuance probe judges
// only a window it owns, and a run whose key's window is spent when it starts waits one out instead of failing to start.
import { afterAll, describe, expect, it } from 'vitest';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { optionsAgainst } from '../helpers.ts';

const target = await startReference({ port: 0, timeScale: 60 });
afterAll(() => target.close());

describe('a key shared with the run just before', () => {
  it('three quick runs back to back: each conformant, the issuance probe never failed on a window it did not own', async () => {
    const s = target.settings;
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Another client of the same key, just before the second and third runs: three exchanges in their window.
      for (let n = 0; n < (i === 0 ? 0 : 3); n++)
        await fetch(`${s.baseUrl}/v1/auth/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: s.apiKey }),
        });
      const opts = optionsAgainst(s, { profile: 'quick', timeScale: 60, seed: i + 1 });
      const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
      const token = report.checks.find((c) => c.id === 'limits.token-limit')!;
      outcomes.push(`${report.verdict}: token-limit ${token.status} (${token.message})`);
      expect(
        report.checks
          .filter((c) => c.status === 'failed' || c.status === 'warning')
          .map((c) => `${c.id}: ${c.message}`),
        `run ${i + 1}`
      ).toEqual([]);
    }
    console.log(outcomes.join('\n'));
  }, 300_000);
});
