import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { TEST_TIME_SCALE, optionsAgainst } from '../helpers.ts';

describe('secrets', () => {
  it('never appear in terminal output or any report, even in failure evidence and curl lines', async () => {
    // Faults that put tokens and keys into evidence: a failed auth check quotes the requests it sent.
    const target = await startReference({
      port: 0,
      timeScale: TEST_TIME_SCALE,
      faults: ['signature-unchecked', 'wrong-api-key-accepted'],
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-secrets-'));
    const lines: string[] = [];
    try {
      const s = target.settings;
      const { report } = await runCommand(
        optionsAgainst(s, {
          timeScale: TEST_TIME_SCALE,
          seed: 7,
          quiet: false,
          reports: [
            { format: 'json', path: `${dir}/r.json` },
            { format: 'junit', path: `${dir}/r.xml` },
            { format: 'html', path: `${dir}/r.html` },
          ],
        }),
        { name: 'cloud-api-conformance', version: 'test' },
        (line) => lines.push(line)
      );
      expect(report.verdict).toBe('nonconformant');
      const outputs = [
        lines.join('\n'),
        ...['r.json', 'r.xml', 'r.html'].map((f) => readFileSync(`${dir}/${f}`, 'utf8')),
      ];
      for (const text of outputs) {
        for (const key of [s.apiKey, s.apiKeyB, s.apiKeyReadonly]) expect(text).not.toContain(key);
        // Tokens are JWTs here: header and payload segments start with eyJ.
        expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
      }
      expect(outputs[1]).toContain('[REDACTED');
    } finally {
      await target.close();
    }
  });
});
