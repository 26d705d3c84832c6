// A clause's domain: resolved against the run's document and keys, exercised by what the judging checks
// sent or were handed, and the rest said with whether this run could have reached it.
import { describe, expect, it } from 'vitest';
import type { OpenAPIV3_1 } from 'openapi-types';
import { computeDomains, partlyVerified } from '../../src/engine/run/domains.ts';
import { newExamined, recordingObjects, recordingLog, type Examined } from '../../src/engine/run/attribution.ts';
import type { Clause } from '../../src/spec/clauses.ts';
import type { Check } from '../../src/engine/run/check.ts';
import type { CheckReport } from '../../src/engine/run/report.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { INPUT_NAMES } from '../../src/cli/options.ts';

const list = {
  '200': {
    description: 'ok',
    content: { 'application/json': { schema: { type: 'object', properties: { vms: { type: 'array' } } } } },
  },
};
const one = {
  '200': {
    description: 'ok',
    content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
  },
};
/** A list takes page and per_page. */
const paged = [
  { name: 'page', in: 'query', schema: { type: 'integer' } },
  { name: 'per_page', in: 'query', schema: { type: 'integer' } },
];
const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/auth/tokens': { post: { operationId: 'issueToken', security: [], responses: one } },
    '/v1/vms': {
      get: { operationId: 'listVms', parameters: paged, responses: list },
      post: { operationId: 'createVm', responses: one },
    },
    '/v1/vms/{id}': { get: { operationId: 'getVm', responses: one } },
    // An export answering every entry at once, in an object: no list.
    '/v1/audit/export': {
      get: {
        operationId: 'exportAudit',
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'object', properties: { entries: { type: 'array' } } } } },
          },
        },
      },
    },
    '/v1/webhooks': {
      get: {
        operationId: 'listWebhooks',
        parameters: paged,
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'object', properties: { webhooks: { type: 'array' } } } },
            },
          },
        },
      },
    },
  },
} as unknown as OpenAPIV3_1.Document;

const operationOf = (method: string, pathname: string) =>
  pathname === '/v1/vms'
    ? method === 'GET'
      ? 'listVms'
      : 'createVm'
    : pathname.startsWith('/v1/vms/')
      ? 'getVm'
      : pathname === '/v1/webhooks'
        ? 'listWebhooks'
        : pathname === '/v1/auth/tokens'
          ? 'issueToken'
          : undefined;

let seq = 0;
function ex(method: string, path: string, status: number, sentBy: string, subject?: string): Exchange {
  return {
    seq: ++seq,
    sentBy,
    subject,
    request: { method, url: `http://127.0.0.1:1${path}`, headers: {} },
    response: { status, headers: {}, body: '' },
    startedAt: '',
    durationMs: 1,
  } as unknown as Exchange;
}
const check = (id: string, clauses: string[], extra: Partial<Check> = {}) =>
  ({
    id,
    group: id.split('.')[0],
    clauses,
    level: 'must',
    why: {},
    title: id,
    run: async () => ({ status: 'passed', message: '' }),
    ...extra,
  }) as unknown as Check;
const passed = (id: string) => ({ id, status: 'passed' }) as CheckReport;

describe('clause domains', () => {
  const clauses: Clause[] = [
    { id: 'PAGE-PARAMS', section: '5', text: 'lists', domain: { operations: ['lists'] } },
    {
      id: 'VM-LIST',
      section: '5',
      text: 'list',
      domain: { operations: ['listVms'], subjects: ['primary', 'second', 'readonly'] },
    },
    { id: 'TASK-ID-RESTORE', section: '5', text: 'restore', domain: { operations: ['restoreBackup'] } },
    {
      id: 'BACKUP-CREATE',
      section: '5',
      text: 'backup',
      domain: { operations: ['getVm'], objects: ['exists', 'absent', 'other-organization'] },
    },
  ];
  const checks = [
    check('pagination.walk', ['PAGE-PARAMS']),
    check('vms.list', ['VM-LIST']),
    check('backups.restore', ['TASK-ID-RESTORE']),
    check('vms.get', ['BACKUP-CREATE']),
  ];
  const created = ex('POST', '/v1/vms', 202, 'setup', 'primary');
  const log = [
    created,
    ex('GET', '/v1/vms', 200, 'pagination.walk', 'primary'),
    ex('GET', '/v1/vms', 200, 'vms.list', 'primary'),
    ex('GET', '/v1/vms', 200, 'vms.list', 'second'),
    ex('GET', '/v1/vms/vm-1', 200, 'vms.get', 'primary'),
    ex('GET', '/v1/vms/vm-1', 404, 'vms.get', 'second'),
    ex('GET', '/v1/vms/nope', 404, 'vms.get', 'primary'),
  ];
  const inputs = (keys: string[]) => ({
    merged: doc,
    operationOf,
    keysHeld: new Set(keys),
    names: INPUT_NAMES,
    ledger: [
      { kind: 'vm' as const, id: 'vm-1', createdBy: 'setup', createdIn: created.seq, cleanup: 'deleted' as const },
    ],
  });
  const run = (keys: string[], examined = new Map<string, Examined>()) =>
    computeDomains(
      clauses,
      checks,
      checks.map((c) => passed(c.id)),
      log,
      examined,
      inputs(keys)
    );

  it('resolves operation sets against the document: lists are the GETs that take page and per_page, answering an array of items', () => {
    const d = run(['primary']).find((x) => x.clause === 'PAGE-PARAMS')!;
    expect(d.domain.operations).toEqual(['listVms', 'listWebhooks']);
    expect(d.exercised.operations).toEqual(['listVms']);
    expect(d.missing).toEqual([
      expect.objectContaining({ dimension: 'operations', point: 'listWebhooks', possible: true }),
    ]);
  });

  it('says a subject is out of reach when the run holds no such key, and within reach when it does', () => {
    const without = run(['primary', 'second']).find((x) => x.clause === 'VM-LIST')!;
    expect(without.exercised.subjects).toEqual(['primary', 'second']);
    expect(without.missing).toEqual([
      expect.objectContaining({ point: 'readonly', possible: false, howToVerify: 'give --api-key-readonly' }),
    ]);
    const held = run(['primary', 'second', 'readonly']).find((x) => x.clause === 'VM-LIST')!;
    expect(held.missing).toEqual([expect.objectContaining({ point: 'readonly', possible: true })]);
  });

  it('says an operation the document lacks is out of reach (declare it)', () => {
    const d = run(['primary']).find((x) => x.clause === 'TASK-ID-RESTORE')!;
    expect(d.missing).toEqual([
      expect.objectContaining({
        point: 'restoreBackup',
        possible: false,
        howToVerify: 'declare restoreBackup in the overlay',
      }),
    ]);
  });

  it("tells object conditions apart: the caller's own object, an absent one, another organization's", () => {
    const d = run(['primary', 'second']).find((x) => x.clause === 'BACKUP-CREATE')!;
    expect(d.exercised.objects).toEqual(['exists', 'absent', 'other-organization']);
    expect(d.missing).toEqual([]);
  });

  it('counts what a check was handed (fixtures, the log) as examined, not only what it sent', async () => {
    const examined = new Map([['pagination.walk', newExamined()]]);
    const fixtures = recordingObjects(
      { webhooks: async () => ({ exchange: ex('GET', '/v1/webhooks', 200, 'setup', 'primary') }) },
      examined.get('pagination.walk')!
    );
    log.push((await fixtures.webhooks()).exchange);
    const d = run(['primary'], examined).find((x) => x.clause === 'PAGE-PARAMS')!;
    expect(d.exercised.operations).toEqual(['listVms', 'listWebhooks']);
    log.pop();
    const seen = newExamined();
    const picked = recordingLog(log, seen).filter((e) => e.sentBy === 'setup');
    expect([...seen.seqs]).toEqual(picked.map((e) => e.seq));
  });

  it("calls a verified clause partly verified only when what is left was within this run's reach", () => {
    const domains = run(['primary', 'second']);
    expect(partlyVerified(['PAGE-PARAMS', 'VM-LIST', 'TASK-ID-RESTORE', 'BACKUP-CREATE'], domains)).toEqual([
      'PAGE-PARAMS',
    ]);
    // A clause not verified is not "partly verified": it is not verified.
    expect(partlyVerified(['VM-LIST'], domains)).toEqual([]);
  });
});

describe('value classes in a domain', () => {
  const clause: Clause = {
    id: 'VM-CREATE-FIELDS',
    section: '2',
    text: 'fields',
    domain: { operations: ['createVm'], values: ['name:mixed-case', 'name:beyond-ascii', 'vcpus:large'] },
  };
  const creates = check('vms.values', ['VM-CREATE-FIELDS']);
  const sent = (body: unknown, status = 202, sentBy = 'vms.values') =>
    ({
      ...ex('POST', '/v1/vms', status, sentBy, 'primary'),
      request: { method: 'POST', url: 'http://127.0.0.1:1/v1/vms', headers: {}, body: JSON.stringify(body) },
    }) as Exchange;
  const domainOf = (log: Exchange[]) =>
    computeDomains([clause], [creates], [passed('vms.values')], log, new Map(), {
      merged: doc,
      operationOf,
      keysHeld: new Set(['primary']),
      names: INPUT_NAMES,
      ledger: [],
    })[0]!;

  it('counts a class exercised when a judging check sent a body whose field holds it, whatever the answer', () => {
    const d = domainOf([sent({ name: 'Read.Back-Zürich', vcpus: 1 }), sent({ name: 'plain', vcpus: 32 }, 400)]);
    expect(d.exercised.values).toEqual(['name:mixed-case', 'name:beyond-ascii', 'vcpus:large']);
    expect(d.missing).toEqual([]);
  });

  it('leaves a class not sent, or sent by a check that does not judge the clause, as missing within reach', () => {
    const d = domainOf([sent({ name: 'plain', vcpus: 1 }), sent({ name: 'Other', vcpus: 64 }, 202, 'vms.elsewhere')]);
    expect(d.exercised.values).toEqual([]);
    expect(d.missing.map((m) => [m.dimension, m.point, m.possible])).toEqual([
      ['values', 'name:mixed-case', true],
      ['values', 'name:beyond-ascii', true],
      ['values', 'vcpus:large', true],
    ]);
    expect(partlyVerified(['VM-CREATE-FIELDS'], [d])).toEqual(['VM-CREATE-FIELDS']);
  });
});

describe('value classes at every position, and their pairs', () => {
  const clause = (id: string, values: string[]): Clause => ({
    id,
    section: '4',
    text: id,
    domain: { operations: ['listVms'], values },
  });
  const judging = check('x.positions', ['TAG-FILTER', 'AUTH', 'PATHS']);
  const sentWith = (path: string, headers: Record<string, string> = {}) => {
    const e = ex('GET', path, 200, 'x.positions', 'primary');
    return { ...e, request: { ...e.request, headers } } as Exchange;
  };
  const domainsOf = (log: Exchange[], pairs: boolean) =>
    computeDomains(
      [
        clause('TAG-FILTER', ['tag:beyond-ascii', 'tag:mixed-case', 'tag:mixed-case+beyond-ascii']),
        clause('AUTH', ['authorization:scheme-lower-case', 'authorization:scheme-lower-case+two-spaces']),
        clause('PATHS', ['path:trailing-slash', 'path:upper-case', 'path:trailing-slash+upper-case']),
      ],
      [judging],
      [passed('x.positions')],
      log,
      new Map(),
      { merged: doc, operationOf, keysHeld: new Set(['primary']), ledger: [], pairs, names: INPUT_NAMES }
    );

  it('reads a query value after its key, a header as recorded (credentials redacted), a path of another shape as the operation it varies', () => {
    const [tag, auth, paths] = domainsOf(
      [
        sentWith(`/v1/vms?tag=${encodeURIComponent('cc-t1:r1-zürich')}`),
        sentWith('/v1/vms', { authorization: 'bearer [REDACTED]' }),
        sentWith('/v1/vms/'),
        sentWith('/V1/VMS'),
      ],
      false
    );
    expect(tag!.exercised.values).toEqual(['tag:beyond-ascii']);
    expect(auth!.exercised.values).toEqual(['authorization:scheme-lower-case']);
    expect(paths!.exercised.values).toEqual(['path:trailing-slash', 'path:upper-case']);
  });

  it('lists an unsent pair as out of reach in quick and within reach in certify; a single class is always within reach', () => {
    const [quick] = domainsOf([], false);
    expect(quick!.missing.filter((m) => m.dimension === 'values').map((m) => [m.point, m.possible])).toEqual([
      ['tag:beyond-ascii', true],
      ['tag:mixed-case', true],
      ['tag:mixed-case+beyond-ascii', false],
    ]);
    const [certify] = domainsOf([], true);
    expect(certify!.missing.find((m) => m.point === 'tag:mixed-case+beyond-ascii')?.possible).toBe(true);
    // A pair is exercised when one value holds both classes.
    const [both] = domainsOf([sentWith(`/v1/vms?tag=${encodeURIComponent('cc-t9:r1-Mixed-zürich')}`)], true);
    expect(both!.exercised.values).toEqual(['tag:beyond-ascii', 'tag:mixed-case', 'tag:mixed-case+beyond-ascii']);
  });
});
