// The order of an audit log is judged where it is observable: between entries of the run's own requests that did not
// overlap. A log written when each call ends and stamped with when it began (go-nethttp, java-httpserver,
// python-stdlib) lists calls in flight together against their times, which is no broken order.
import { describe, expect, it } from 'vitest';
import type { AuditDeclaration } from '../../src/spec/declarations.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { orderBroken } from '../../suites/audit/search-filters.ts';
import { REFERENCE_OVERLAY, runAgainstReference } from '../helpers.ts';

const audit = {
  search: { method: 'GET', path: '/v1/audit' },
  fields: {
    id: '/id',
    actor: '/actor',
    sourceIp: '/ip',
    result: '/result',
    path: '/path',
    status: '/status',
    method: '/method',
    time: '/time',
  },
  filters: {},
  resultValues: { success: 'success', failure: 'failure' },
  order: 'newest-first',
} as AuditDeclaration;

/** A request of the run's primary key to `path`, sent at `from` and answered at `to` (ms). */
const sent = (path: string, from: number, to: number): Exchange =>
  ({
    seq: 0,
    sentBy: 't',
    subject: 'primary',
    request: { method: 'GET', url: `http://t${path}`, headers: {} },
    response: { status: 404, headers: {}, body: '' },
    startedAt: new Date(from).toISOString(),
    durationMs: to - from,
  }) as Exchange;
const entry = (path: string, time: number, actor = 'key-1') => ({
  path,
  actor,
  method: 'GET',
  status: 404,
  time: new Date(time).toISOString(),
});

const log = [sent('/a', 0, 10), sent('/b', 5, 20), sent('/c', 300, 310), sent('/d', 311, 320)];
/** Every path of the log is one only this run can have asked (its names, its objects). */
const owns = () => true;

describe('orderBroken', () => {
  it('takes calls that overlapped in either order, whatever their times say', () => {
    // /b began after /a and is listed after it, newest first: they overlapped, so either order is the log's.
    const r = orderBroken(audit, [entry('/c', 300), entry('/a', 0), entry('/b', 5)], { log, actor: 'key-1', owns });
    expect(r).toEqual({ judged: 2 });
  });

  it('fails a call listed before one that was sent after it was answered', () => {
    const r = orderBroken(audit, [entry('/a', 0), entry('/c', 300)], { log, actor: 'key-1', owns });
    expect(r.broken).toMatch(/entry 1 \(GET \/a → 404\) comes before entry 2 \(GET \/c → 404\).*sent 290 ms after/);
  });

  it('leaves calls a moment apart unjudged: an entry may be written just after its answer', () => {
    // /d was sent 1 ms after /c was answered; a log written after the response is flushed may list it first.
    const r = orderBroken(audit, [entry('/c', 300), entry('/d', 311)], { log, actor: 'key-1', owns });
    expect(r).toEqual({ judged: 0 });
  });

  it("judges only the run's own entries: another actor's, or a path the run never asked, are not compared", () => {
    const r = orderBroken(audit, [entry('/a', 0, 'someone'), entry('/zz', 99), entry('/c', 300)], {
      log,
      actor: 'key-1',
      owns,
    });
    expect(r).toEqual({ judged: 0 });
  });

  it("leaves out a path any run of the key asks: an earlier run's entry for it is no evidence of this run's order", () => {
    // /a is a path every run asks (the list): the entry listed last may be an earlier run's, logged an hour before.
    const everyRunAsks = (path: string) => path !== '/a';
    const r = orderBroken(audit, [entry('/c', 300), entry('/a', -3_600_000)], {
      log,
      actor: 'key-1',
      owns: everyRunAsks,
    });
    expect(r).toEqual({ judged: 0 });
    expect(orderBroken(audit, [entry('/a', 0), entry('/c', 300)], { log, actor: 'key-1', owns }).broken).toBeDefined();
  });
});

describe('audit.search on a log that holds an earlier run of the same key', () => {
  it("judges the order on the run's own paths only, and passes", async () => {
    const report = await runAgainstReference({
      variants: ['audit-earlier-run'],
      overlay: REFERENCE_OVERLAY,
    });
    expect(report.checks.find((c) => c.id === 'audit.search')).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/entries newest first, as declared \([1-9]\d* pairs of the run's own requests/),
    });
  });
});

describe('audit.search on a log stamped with when each call began', () => {
  it('holds the declared order where the run can observe it', async () => {
    const report = await runAgainstReference({
      variants: ['audit-time-at-start'],
      overlay: REFERENCE_OVERLAY,
    });
    expect(report.checks.find((c) => c.id === 'audit.search')).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(/entries newest first, as declared \([1-9]\d* pairs of the run's own requests/),
    });
  });
});
