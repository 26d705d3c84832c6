// The roles that may call an operation, declared as OpenAPI 3.1 Security Requirements list them,
// drive function-level authorization over every declared operation, for every key the run holds, and a write the
// overlay lists for the read-only key's own role is no longer the MUST check's to refuse.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { documentOperations } from '../../src/engine/schema/operations.ts';
import { runAgainstReference } from './../helpers.ts';
import { CLAIMS_OVERLAY } from '../../scripts/gates/fault-runs.ts';
import { CLAIMS_VARIANTS } from '../../fixtures/reference/variants.ts';

const doc = (
  op: { security?: OpenAPIV3_1.SecurityRequirementObject[] },
  top?: OpenAPIV3_1.SecurityRequirementObject[]
): OpenAPIV3_1.Document => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  ...(top ? { security: top } : {}),
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      key: { type: 'apiKey', in: 'header', name: 'X-Key' },
    },
  },
  paths: { '/v1/audit': { get: { operationId: 'searchAudit', responses: {}, ...op } } },
});

describe('the roles an operation declares (documentOperations)', () => {
  const cases: Array<[string, OpenAPIV3_1.Document, string[] | undefined]> = [
    ["the operation's own requirement", doc({ security: [{ bearer: ['operator'] }] }), ['operator']],
    [
      'alternatives: any of their roles',
      doc({ security: [{ bearer: ['operator'] }, { bearer: ['auditor', 'operator'] }] }),
      ['operator', 'auditor'],
    ],
    ["the document's requirement where the operation has none", doc({}, [{ bearer: ['viewer'] }]), ['viewer']],
    [
      "the operation's own over the document's",
      doc({ security: [{ bearer: ['operator'] }] }, [{ bearer: ['viewer'] }]),
      ['operator'],
    ],
    ['no role names: none declared', doc({ security: [{ bearer: [] }] }), undefined],
    [
      'names under a scheme that is not a bearer token: not roles of a key',
      doc({ security: [{ key: ['admin'] }] }),
      undefined,
    ],
  ];
  for (const [what, d, roles] of cases) it(what, () => expect(documentOperations(d)[0]!.roles).toEqual(roles));
});

const claims = { overlay: CLAIMS_OVERLAY, variants: [...CLAIMS_VARIANTS], only: ['security'] };
const statusOf = (report: Awaited<ReturnType<typeof runAgainstReference>>, id: string) =>
  report.checks.find((c) => c.id === id)!;

describe('security.declared-roles on the reference (reference-claims.yaml)', () => {
  it('tries every declared operation with each key, and every call is decided on the clean reference', async () => {
    const report = await runAgainstReference(claims);
    const check = statusOf(report, 'security.declared-roles');
    expect(check.status).toBe('passed');
    // Three keys over 17 operations (issue token and the revocation are never sent): none undecided.
    expect(check.message).toMatch(
      /primary key \(operator\), readonly key \(viewer\), second key \(operator\) over 17 operations: 40 calls of a listed role not refused, 11 of an unlisted role refused$/
    );
  });

  it('leaves a write the overlay lists for the read-only role to it, and the MUST check no longer refuses it', async () => {
    // The claims overlay, plus the viewer listed for alarm creation (Overlay 1.0 appends: an alternative requirement).
    const dir = mkdtempSync(join(tmpdir(), 'cc-roles-'));
    const file = join(dir, 'viewer-alarms.yaml');
    writeFileSync(
      file,
      `${readFileSync(CLAIMS_OVERLAY, 'utf8')}\n  - target: $.paths['/v1/alarms'].post\n    update:\n      security: [{ bearer: [viewer] }]\n`
    );
    const declaredForViewer = await runAgainstReference({
      ...claims,
      overlay: file,
      faults: ['readonly-can-create-alarm'],
    });
    expect(statusOf(declaredForViewer, 'security.readonly-write-refused')).toMatchObject({
      status: 'passed',
      message: expect.stringMatching(
        /declared for its role "viewer", so not judged here: an alarm on the organization's VM$/
      ),
    });
    expect(statusOf(declaredForViewer, 'security.declared-roles').status).toBe('passed');
    // The same target under the overlay as it stands: both checks fail it.
    const declaredForOperator = await runAgainstReference({ ...claims, faults: ['readonly-can-create-alarm'] });
    expect(statusOf(declaredForOperator, 'security.readonly-write-refused').status).toBe('failed');
    expect(statusOf(declaredForOperator, 'security.declared-roles')).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/createAlarm served the readonly key/),
    });
  });
});
