import { describe, it, expect } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runAgainstReference } from '../helpers.ts';
import { cli } from './processes.ts';

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
        const child = spawn(
          process.execPath,
          [
            BIN,
            'run',
            '--dry-run',
            '--base-url',
            `http://127.0.0.1:${port}`,
            '--api-key',
            'k'.repeat(24),
            '--only',
            'auth,vms',
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] }
        );
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

  it('--dry-run on the embedded reference plans the requests the run then makes: its overlay and groups, within 5%', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cc-dry-'));
    try {
      // One seed for both: the generated cases decide how many VMs are made and listed (unseeded runs differ by ~5%).
      const plan = await cli(['run', '--dry-run', '--seed', '7', '--only', 'auth,vms,webhooks']);
      const planned = /requests: (\d+), of which (\d+) writes/.exec(plan.stdout);
      expect(planned, plan.stdout).not.toBeNull();
      const ran = await cli([
        'run',
        '--seed',
        '7',
        '--only',
        'auth,vms,webhooks',
        '--quiet',
        '--report',
        `json:${path.join(dir, 'r.json')}`,
      ]);
      expect(ran.status, ran.stderr).toBe(0);
      const traffic = (
        JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')) as { traffic: { requests: number; writes: number } }
      ).traffic;
      expect(Math.abs(Number(planned![1]) - traffic.requests) / traffic.requests).toBeLessThan(0.05);
      expect(Math.abs(Number(planned![2]) - traffic.writes) / traffic.writes).toBeLessThan(0.05);
      // The webhooks group runs under the reference's overlay, in the plan as in the run.
      expect(plan.stdout).toMatch(/\/v1\/webhooks|POST \(other paths\)|webhooks/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('--read-only makes no write but token exchanges, and skips what needs writes with the reason', async () => {
    const report = await runAgainstReference({
      readOnly: true,
      only: ['auth', 'vms', 'tasks', 'pagination', 'errors', 'backups', 'security'],
    });
    const sent = Object.entries(report.traffic.byEndpoint ?? {});
    // OPTIONS is safe (RFC 9110 §9.2.1): the served-operations registry asks it once per path, on ids that exist
    // nowhere, under --read-only too (docs/checks-and-levels.md), and records what it learnt.
    const options = sent.filter(([k]) => k.startsWith('OPTIONS '));
    if (options.length) expect(report.observations.servedOperations?.operations.length).toBeGreaterThan(0);
    const writes = sent.filter(
      ([k]) =>
        !k.startsWith('GET ') && !k.startsWith('HEAD ') && !k.startsWith('OPTIONS ') && k !== 'POST /v1/auth/tokens'
    );
    expect(writes).toEqual([]);
    expect(report.ledger).toEqual({ entries: [], leftBehind: [] });
    expect(report.checks.find((c) => c.id === 'vms.create-returns-task')).toMatchObject({
      status: 'skipped',
      message: expect.stringMatching(/--read-only/),
    });
    expect(report.safety).toEqual({ readOnly: true, insecure: false });
    expect(report.verdict).toBe('conformant');
  });
});
