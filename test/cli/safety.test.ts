import { describe, it, expect } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { runAgainstReference } from '../helpers.ts';

const BIN = path.resolve('bin/cloud-conformance.js');

describe('production safety', () => {
  it('--dry-run prints the plan and sends nothing to the target', async () => {
    let received = 0;
    const server = http.createServer((_req, res) => {
      received++;
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'run', '--dry-run', '--base-url', `http://127.0.0.1:${port}`, '--api-key', 'k'.repeat(24), '--only', 'auth,vms'], { stdio: ['ignore', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout!.on('data', (d) => (stdout += d));
        child.on('exit', (code) => resolve({ code, stdout }));
      });
      expect(out.code).toBe(0);
      expect(received).toBe(0);
      expect(out.stdout).toMatch(/dry run: nothing was sent to http:\/\/127\.0\.0\.1/);
      expect(out.stdout).toMatch(/POST \/v1\/vms/);
      expect(out.stdout).toMatch(/it would create: \d+ vm/);
    } finally {
      server.close();
    }
  });

  it('--read-only makes no write but token exchanges, and skips what needs writes with the reason', async () => {
    const report = await runAgainstReference({ readOnly: true, only: ['auth', 'vms', 'tasks', 'pagination', 'errors', 'backups', 'security'] });
    const writes = Object.entries(report.traffic.byEndpoint ?? {}).filter(([k]) => !k.startsWith('GET ') && !k.startsWith('HEAD ') && k !== 'POST /v1/auth/tokens');
    expect(writes).toEqual([]);
    expect(report.ledger).toEqual([]);
    expect(report.checks.find((c) => c.id === 'vms.create-returns-task')).toMatchObject({ status: 'skipped', message: expect.stringMatching(/--read-only/) });
    expect(report.safety).toEqual({ readOnly: true, insecure: false });
    expect(report.verdict).toBe('conformant');
  });
});
