// Everything the run makes on a deployment carries its prefix (cc-<run id>-): a person, or the next run's cleanup,
// finds what a run left by that prefix alone. A forwarder in front of the reference keeps every create body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startReference } from '../../fixtures/reference/server.ts';
import { runCommand } from '../../src/cli/run.ts';
import { optionsAgainst } from '../helpers.ts';

const target = await startReference({ port: 0, timeScale: 60 });
const sent: Array<{ path: string; body: unknown; status?: number }> = [];
const forwarder: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    let record: { path: string; body: unknown; status?: number } | undefined;
    if (req.method === 'POST')
      try {
        record = { path: req.url!, body: JSON.parse(raw.toString('utf8')) as unknown };
        sent.push(record);
      } catch {
        // A framing case: not JSON on purpose.
      }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))
    ) as Record<string, string>;
    void fetch(`${target.settings.baseUrl}${req.url}`, {
      method: req.method,
      headers,
      ...(raw.length ? { body: raw } : {}),
    }).then(
      async (answer) => {
        const body = Buffer.from(await answer.arrayBuffer());
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
        });
        if (record) record.status = answer.status;
        res.writeHead(answer.status, out).end(body);
      },
      () => res.writeHead(502).end()
    );
  });
});
await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
const forwarderUrl = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
afterAll(async () => {
  forwarder.close();
  await target.close();
});

describe("what the run makes carries the run's prefix", () => {
  it('every backup it starts is described cc-<run id>-…, every create it had accepted is named so', async () => {
    const opts = optionsAgainst(
      { ...target.settings, baseUrl: forwarderUrl },
      { profile: 'quick', timeScale: 60, only: ['backups', 'tasks', 'vms', 'security', 'webhooks', 'alarms', 'errors'] }
    );
    const { report } = await runCommand(opts, { name: 'cloud-api-conformance', version: 'test' }, () => {}, {});
    const described = sent.filter(
      (s): s is { path: string; body: { description: string } } =>
        /\/backups$/.test(s.path) && typeof (s.body as { description?: unknown } | null)?.description === 'string'
    );
    // The run id is the one its VMs are named with (the ledger's names).
    const runIds = new Set(report.ledger.entries.flatMap((e) => /^cc-([0-9a-f]{8})-/.exec(e.name ?? '')?.[1] ?? []));
    expect([...runIds]).toHaveLength(1);
    expect(described.length).toBeGreaterThan(3);
    expect(described.filter((s) => !s.body.description.startsWith(`cc-${[...runIds][0]}-`))).toEqual([]);
    // Every create the target accepted (a VM, an alarm, a webhook: whatever answered 2xx with a name sent).
    const named = sent.filter(
      (s) => s.status! < 300 && typeof (s.body as { name?: unknown } | null)?.name === 'string'
    ) as Array<{ path: string; body: { name: string } }>;
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((s) => !s.body.name.startsWith(`cc-${[...runIds][0]}-`))).toEqual([]);
  }, 120_000);
});
