import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkOverlay, isRuntimeExpression } from '../../src/spec/overlay-check.ts';
import { BASE_SPEC_PATH } from '../../src/spec/load.ts';

const base = parse(readFileSync(BASE_SPEC_PATH, 'utf8'));
const overlay = (...actions: unknown[]) => ({ overlay: '1.0.0', info: { title: 't', version: '1' }, actions });
const problems = async (...actions: unknown[]) => (await checkOverlay(base, overlay(...actions))).problems;

// Each bad term is named with its action, its target and its JSON path in the document.
describe('overlay check', () => {
  it.each([
    [
      'an unknown extension',
      { target: '$.info', update: { 'x-frobnicate': 1 } },
      {
        action: 1,
        target: '$.info',
        path: "$.info['x-frobnicate']",
        message: expect.stringMatching(/unknown extension x-frobnicate/),
      },
    ],
    [
      'an unknown error case',
      { target: '$.info', update: { 'x-error-cases': { gone: { status: 410 } } } },
      {
        action: 1,
        path: "$.info['x-error-cases']",
        message: expect.stringMatching(/unknown error case "gone" \(cases: unauthenticated,/),
      },
    ],
    [
      'a malformed error case',
      { target: '$.info', update: { 'x-error-cases': { 'not-found': { status: 'four-oh-four' } } } },
      { action: 1, message: expect.stringMatching(/x-error-cases/) },
    ],
    [
      'a term out of place',
      { target: "$.paths['/v1/vms'].post", update: { 'x-first-page': 1 } },
      {
        path: "$.paths['/v1/vms'].post['x-first-page']",
        message: 'x-first-page does not belong at operation (it goes at parameter)',
      },
    ],
    [
      'a term with a bad value',
      { target: "$.paths['/v1/vms'].post", update: { 'x-webhook-retry': { delays: [] } } },
      { message: expect.stringMatching(/x-webhook-retry .*delays/) },
    ],
    [
      'an unknown signature placeholder',
      { target: "$.paths['/v1/vms'].post", update: { 'x-webhook-signature': { payload: '{nonce}.{body}' } } },
      { message: expect.stringMatching(/x-webhook-signature \/payload must match pattern/) },
    ],
    [
      'an annotation set by an overlay',
      { target: "$.paths['/v1/vms'].post", update: { 'x-clauses': ['VM-CREATE'] } },
      { message: 'x-clauses is an annotation of the derived document, not a declaration' },
    ],
    [
      'a target that matches nothing',
      { target: "$.paths['/v1/nope']", update: { 'x-cleanup-for': 'createVm' } },
      { action: 1, target: "$.paths['/v1/nope']", message: 'the target matches nothing in the document' },
    ],
    [
      'a link to an operation that does not exist',
      {
        target: "$.paths['/v1/vms'].post.responses['2XX']",
        update: { links: { t: { operationId: 'getTsk', parameters: { id: '$response.body#/task_id' } } } },
      },
      {
        path: "$.paths['/v1/vms'].post.responses['2XX'].links.t",
        message: expect.stringMatching(/operationId getTsk, which no operation/),
      },
    ],
    [
      'a link parameter that is no runtime expression',
      {
        target: "$.paths['/v1/vms'].post.responses['2XX']",
        update: { links: { t: { operationId: 'getTask', parameters: { id: '$response.bdy.task_id' } } } },
      },
      { message: expect.stringMatching(/is not a runtime expression/) },
    ],
    [
      'a token claim out of place (on an operation, not a link)',
      { target: "$.paths['/v1/vms'].get", update: { 'x-token-claim': 'sub' } },
      { message: 'x-token-claim does not belong at operation (it goes at link)' },
    ],
    [
      'a token claim that is not a name',
      {
        target: "$.paths['/v1/auth/tokens'].post.responses['2XX']",
        update: {
          links: { r: { operationId: 'getTask', parameters: { id: '$response.body#/token' }, 'x-token-claim': 7 } },
        },
      },
      {
        path: "$.paths['/v1/auth/tokens'].post.responses['2XX'].links.r['x-token-claim']",
        message: 'x-token-claim must be string',
      },
    ],
    [
      'roles under a security scheme the document does not define',
      { target: "$.paths['/v1/vms'].get", update: { security: [{ bearerAuth: ['viewer'] }] } },
      {
        path: "$.paths['/v1/vms'].get.security[0].bearerAuth",
        message: 'names security scheme bearerAuth, which components.securitySchemes does not define (schemes: bearer)',
      },
    ],
    [
      'roles that are not names',
      { target: "$.paths['/v1/vms'].get", update: { security: [{ bearer: 'viewer' }] } },
      {
        path: "$.paths['/v1/vms'].get.security[0].bearer",
        message: 'the roles of a Security Requirement must be a list of role names (strings)',
      },
    ],
    [
      'a cleanup naming no operation',
      { target: "$.paths['/v1/vms'].get", update: { 'x-cleanup-for': 'makeVm' } },
      { message: 'x-cleanup-for names operationId makeVm, which no operation of the document has' },
    ],
  ])('names %s with its location', async (_what, action, expected) => {
    const found = await problems(action);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject(expected);
  });

  it('locates terms in operations added by an earlier action, and counts the action', async () => {
    const found = await problems(
      {
        target: '$.paths',
        update: { '/v1/x': { delete: { operationId: 'delX', responses: { '200': { description: 'ok' } } } } },
      },
      { target: "$.paths['/v1/x'].delete", update: { 'x-cleanup-for': 'createVm', 'x-oops': true } }
    );
    expect(found).toEqual([
      {
        action: 2,
        target: "$.paths['/v1/x'].delete",
        path: "$.paths['/v1/x'].delete['x-oops']",
        message: expect.stringMatching(/unknown extension x-oops/),
      },
    ]);
  });

  it('reads keys of name maps as names, not as extensions (a property or header called x-…)', async () => {
    expect(
      await problems({
        target: '$.components.schemas.VmCreateRequest',
        update: { properties: { 'x-request-id': { type: 'string' } } },
      })
    ).toEqual([]);
    expect(
      await problems({
        target: "$.paths['/v1/vms'].post.responses['2XX']",
        update: { headers: { 'x-request-id': { schema: { type: 'string' } } } },
      })
    ).toEqual([]);
  });

  it('refuses what is not an Overlay 1.0 document (an empty action list included)', async () => {
    expect(
      (await checkOverlay(base, { overlay: '1.0.0', info: { title: 't', version: '1' }, actions: [] })).problems[0]!
        .message
    ).toMatch(/not an OpenAPI Overlay 1.0 document: \/actions must NOT have fewer than 1 items/);
  });

  it.each([
    '$response.body#/webhook/id',
    '$response.body',
    '$response.header.Location',
    '$request.path.id',
    '$url',
    '$statusCode',
  ])('accepts the runtime expression %s', (e) => {
    expect(isRuntimeExpression(e)).toBe(true);
  });
  it.each(['$response.body.id', '$response.header.', '$resp.body#/id', '$response.body#id'])(
    'refuses %s as a runtime expression',
    (e) => {
      expect(isRuntimeExpression(e)).toBe(false);
    }
  );
});
