// Invalid inputs for every operation: the cases come from the document, so an operation added to it is
// covered with no new code; the choice among them is seeded.
import { describe, expect, it } from 'vitest';
import type { OpenAPIV3_1 } from 'openapi-types';
import { inputOperations, invalidCases } from '../../src/engine/generate/invalid-inputs.ts';

const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things': {
      post: {
        security: [],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string' },
                  size: { type: 'integer', minimum: 1 },
                  tags: { type: 'array' },
                },
              },
            },
          },
        },
        responses: {},
      },
      get: {
        parameters: [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
        responses: {},
      },
      delete: {
        requestBody: {
          content: { 'application/json': { schema: { type: 'object', properties: { x: { type: 'string' } } } } },
        },
        responses: {},
      },
    },
    '/v1/things/{id}': { get: { responses: {} } },
  },
} as unknown as OpenAPIV3_1.Document;

describe('inputOperations', () => {
  it('finds every GET, POST, PUT, PATCH with a JSON object body or query parameters, never a DELETE', () => {
    expect(inputOperations(doc).map((o) => `${o.method} ${o.path} public=${o.public}`)).toEqual([
      'GET /v1/things public=false',
      'POST /v1/things public=true',
    ]);
  });
  it('takes an object body that names no property (a restore), with only the bodies that are not an object', () => {
    const more = structuredClone(doc) as unknown as { paths: Record<string, unknown> };
    more.paths['/v1/things/{id}/restore'] = {
      post: {
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {},
      },
    };
    const restore = inputOperations(more as unknown as OpenAPIV3_1.Document).find(
      (o) => o.path === '/v1/things/{id}/restore'
    )!;
    expect(invalidCases(restore, 1, 8).map((c) => [c.what, c.unambiguous])).toEqual([
      ['a JSON array as the body', true],
      ['a JSON string as the body', true],
    ]);
  });
  it('covers an operation added to the document with no new code', () => {
    const more = structuredClone(doc) as unknown as { paths: Record<string, unknown> };
    more.paths['/v1/other/{id}/act'] = {
      post: {
        requestBody: {
          content: { 'application/json': { schema: { type: 'object', properties: { reason: { type: 'string' } } } } },
        },
        responses: {},
      },
    };
    const added = inputOperations(more as unknown as OpenAPIV3_1.Document).find(
      (o) => o.path === '/v1/other/{id}/act'
    )!;
    expect(added.pathParams).toEqual(['id']);
    expect(invalidCases(added, 1, 8).map((c) => c.what)).toEqual([
      'a JSON array as the body',
      'a JSON string as the body',
      'reason as {"not":"a scalar"}',
    ]);
  });
});

describe('invalidCases', () => {
  const [list, create] = inputOperations(doc);
  it('gives a body that is not an object, a foreign value per property and each required property missing', () => {
    expect(invalidCases(create!, 1, 20, { name: 'cc-run-invalid' }).map((c) => [c.what, c.unambiguous])).toEqual([
      ['a JSON array as the body', true],
      ['a JSON string as the body', true],
      ['name as {"not":"a scalar"}', true],
      ['size as {"not":"a scalar"}', true],
      ['tags as {"not":"an array"}', true],
      ['name missing', false],
    ]);
  });
  it('keeps the rest of the body plausible, with what the run supplies', () => {
    const size = invalidCases(create!, 1, 20, { name: 'cc-run-invalid' }).find((c) => c.what.startsWith('size'))!;
    expect(size.body).toEqual({ name: 'cc-run-invalid', size: { not: 'a scalar' }, tags: [] });
  });
  it('sends a value of another type for typed query parameters only', () => {
    expect(invalidCases(list!, 1, 20).map((c) => c.query)).toEqual([{ page: 'not-a-number' }]);
  });
  it('samples at most max cases, the same under one seed, keeping room for the ambiguous ones', () => {
    const a = invalidCases(create!, 7, 4).map((c) => c.what);
    expect(a).toHaveLength(4);
    expect(invalidCases(create!, 7, 4).map((c) => c.what)).toEqual(a);
    expect(a).toContain('name missing');
  });
});
