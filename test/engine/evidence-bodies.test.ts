import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { fail, pass } from '../../src/engine/outcome/outcome.ts';

// A failure's evidence keeps the body as the run recorded it (64 KiB, docs/options.md): a list of 101 items is 27 KB,
// and the newcomer trial could not see the 101st in evidence cut at 2 KiB. A pass keeps 2 KiB: what it saw, in short.
const listed = (chars: number): Exchange =>
  ({
    seq: 1,
    sentBy: 't',
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    request: { method: 'GET', url: 'http://127.0.0.1:9/v1/vms?per_page=500', headers: {} },
    response: { status: 200, headers: {}, body: 'x'.repeat(chars), bodyBytes: chars },
  }) as Exchange;

describe("a body in a check's evidence", () => {
  it('is kept as recorded in a failure', () => {
    const out = fail('too many', [listed(27_618)]);
    expect(out.status === 'failed' && out.evidence.exchanges[0]!.response!.body).toHaveLength(27_618);
  });

  it('is cut to 2 KiB, marked, in a pass, with its size', () => {
    const out = pass('fine', [listed(27_618)]);
    const response = out.status === 'passed' ? out.evidence!.exchanges[0]!.response! : undefined;
    expect(response?.body).toBe(`${'x'.repeat(2048)}…`);
    expect(response?.bodyBytes).toBe(27_618);
  });
});
