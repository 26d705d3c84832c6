import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadClauses, FAULT_DIMENSIONS, LIST_VIEWS, type FaultModelEntry } from '../../src/spec/clauses.ts';
import { FAULTS, HOSTILE_FAULTS, type FaultDef } from '../../fixtures/reference/faults.ts';
import { S3_FAULTS } from '../../fixtures/s3/faults.ts';
import { allChecks } from '../../suites/index.ts';
import { VALUE_CLASSES } from '../../src/spec/value-classes.ts';

// The fault model (spec/clauses.yaml faults:) is the specification of what the catalogue must realize: every MUST
// clause names the ways it can break, each way is a reference fault, and the check it names is one that kills it.
const catalogue = new Map<string, FaultDef>([...FAULTS, ...S3_FAULTS].map((f) => [f.name, f]));
const checkIds = new Set(allChecks.map((c) => c.id));

async function models(): Promise<Array<{ id: string; must: boolean; faults: FaultModelEntry[] }>> {
  const { clauses, unshown } = await loadClauses();
  return [
    ...clauses.map((c) => ({ id: c.id, must: c.checkable !== false && !c.deferred, faults: c.faults ?? [] })),
    ...unshown.map((u) => ({ id: u.id, must: false, faults: u.faults ?? [] })),
  ];
}

describe('the fault model', () => {
  it('gives every MUST clause (checkable, not deferred) a non-empty list of faults', async () => {
    const empty = (await models()).filter((m) => m.must && m.faults.length === 0).map((m) => m.id);
    expect(empty).toEqual([]);
  });

  it('gives no fault model to a clause that cannot be checked', async () => {
    const { clauses } = await loadClauses();
    expect(clauses.filter((c) => (c.checkable === false || c.deferred) && c.faults?.length).map((c) => c.id)).toEqual(
      []
    );
  });

  it('names, in every entry, a dimension, a fault of the catalogue, a check that kills it and a one-line way it breaks', async () => {
    for (const m of await models()) {
      for (const e of m.faults) {
        const where = `${m.id} → ${e.fault}`;
        expect(FAULT_DIMENSIONS, where).toContain(e.dimension);
        expect(catalogue.has(e.fault), `${where}: not in fixtures/reference/faults.ts or fixtures/s3/faults.ts`).toBe(
          true
        );
        const f = catalogue.get(e.fault)!;
        expect([f.check, ...(f.alsoCaughtBy ?? [])], `${where}: the catalogue says ${f.check} catches it`).toContain(
          e.check
        );
        expect(checkIds, where).toContain(e.check);
        expect(e.breaks, where).toMatch(/\S{3,}/);
        expect(e.breaks.includes('\n'), `${where}: breaks is one line`).toBe(false);
      }
      // One fault is one way of breaking a clause: listed once per clause.
      const names = m.faults.map((e) => e.fault);
      expect(
        names.filter((n, i) => names.indexOf(n) !== i),
        m.id
      ).toEqual([]);
    }
  });

  // What npm run new-check leaves for the author: a fault passes here only once written.
  it('holds no stub: every fault of both catalogues names its clauses and leaves no TODO', () => {
    const stubs = [...FAULTS, ...S3_FAULTS].filter(
      (f) => f.clauses.length === 0 || /\bTODO\b|^todo-/.test(`${f.name} ${f.description}`)
    );
    expect(stubs.map((f) => f.name)).toEqual([]);
  });

  it('places every fault of the reference catalogue in some model (hostile faults prove bounds, not clauses)', async () => {
    const modelled = new Set((await models()).flatMap((m) => m.faults.map((e) => e.fault)));
    expect(FAULTS.map((f) => f.name).filter((n) => !modelled.has(n))).toEqual([]);
    expect(HOSTILE_FAULTS.map((f) => f.name).filter((n) => modelled.has(n))).toEqual([]);
  });

  it('keeps MUST faults off the items the seed leaves unshown (they carry declared and should faults only)', async () => {
    for (const m of (await models()).filter((x) => !x.must)) {
      const must = m.faults.filter((e) => catalogue.get(e.fault)!.level === 'must');
      expect(
        must.map((e) => e.fault),
        m.id
      ).toEqual([]);
    }
  });

  it('draws on every dimension', async () => {
    const used = new Set((await models()).flatMap((m) => m.faults.map((e) => e.dimension)));
    expect([...used].sort()).toEqual([...FAULT_DIMENSIONS].sort());
  });
});

// Each MUST clause states what it ranges over; the run reports which points it exercised.
describe('clause domains', () => {
  const SETS = ['all', 'authenticated', 'reads', 'writes', 'lists', 'long-running'];
  const SUBJECTS = ['primary', 'second', 'readonly', 'revocable'];
  const OBJECTS = ['exists', 'absent', 'other-organization'];
  // Operation ids of the derived document and of the shipped overlays (declared operations).
  const documents = [
    'spec/openapi.yaml',
    'spec/overlays/reference.yaml',
    'spec/overlays/reference-alt.yaml',
    'spec/overlays/reference-claims.yaml',
    'spec/overlays/reference-quota.yaml',
  ]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const operationIds = new Set([...documents.matchAll(/operationId: (\w+)/g)].map((m) => m[1]!));

  it('names only known operation sets or operation ids, roles and object conditions', async () => {
    for (const c of (await loadClauses()).clauses.filter((x) => x.domain)) {
      for (const o of c.domain!.operations ?? [])
        expect(SETS.includes(o) || operationIds.has(o), `${c.id}: operation ${o}`).toBe(true);
      for (const s of c.domain!.subjects ?? []) expect(SUBJECTS, `${c.id}: subject ${s}`).toContain(s);
      for (const o of c.domain!.objects ?? []) expect(OBJECTS, `${c.id}: object ${o}`).toContain(o);
      for (const v of c.domain!.views ?? []) expect(Object.keys(LIST_VIEWS), `${c.id}: view ${v}`).toContain(v);
      // A value class is one the vocabulary knows, of an operation the same domain names.
      for (const v of c.domain!.values ?? []) {
        expect(Object.keys(VALUE_CLASSES), `${c.id}: value class ${v}`).toContain(v);
        // Of an operation the domain names, or of a set of them (resolved against the run's document).
        const ops = c.domain!.operations ?? [];
        expect(
          VALUE_CLASSES[v]!.operations.some((o) => ops.includes(o)) || ops.some((o) => SETS.includes(o)),
          `${c.id}: ${v} is of ${VALUE_CLASSES[v]!.operations.join(', ')}`
        ).toBe(true);
      }
    }
  });

  it('gives a domain to every checkable MUST clause of the HTTP API (S3 and webhook deliveries range over their own matrices)', async () => {
    const apiClauses = (await loadClauses()).clauses.filter(
      (c) => c.checkable !== false && !c.deferred && !/^(S3-|EVENTS-)/.test(c.id)
    );
    expect(apiClauses.filter((c) => !c.domain).map((c) => c.id)).toEqual([]);
  });
});
