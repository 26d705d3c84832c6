import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse as parseYaml } from 'yaml';
import { Ajv } from 'ajv';
import { UsageError } from './errors.ts';

const require = createRequire(import.meta.url);
// openapi-format is CommonJS; its overlay engine reports which actions matched nothing.
const { openapiOverlay } = require('openapi-format') as {
  openapiOverlay(doc: unknown, opts: { overlaySet: unknown }): Promise<{ data: unknown; resultData: { unusedActions: OverlayAction[] } }>;
};

export const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../spec');
export const BASE_SPEC_PATH = path.join(SPEC_DIR, 'openapi.yaml');

export type OpenApiDocument = OpenAPIV3_1.Document;

export interface OverlayAction {
  target: string;
  description?: string;
  update?: unknown;
  remove?: boolean;
}

export interface LoadedSpec {
  /** The seed-derived document, $refs resolved. */
  base: OpenApiDocument;
  /** base + overlay, $refs resolved; equal to base when no overlay was given. */
  merged: OpenApiDocument;
  overlayPath?: string;
  overlayActions: number;
}

const overlaySchema = {
  type: 'object',
  required: ['overlay', 'info', 'actions'],
  properties: {
    overlay: { type: 'string', pattern: '^1\\.0\\.\\d+$' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: { type: 'string' }, version: { type: 'string' } },
    },
    extends: { type: 'string' },
    actions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['target'],
        properties: {
          target: { type: 'string', pattern: '^\\$' },
          description: { type: 'string' },
          update: {},
          remove: { const: true },
        },
        anyOf: [{ required: ['update'] }, { required: ['remove'] }],
      },
    },
  },
} as const;

const validateOverlayShape = new Ajv({ allErrors: true }).compile(overlaySchema);

async function readYamlFile(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseYaml(text);
  } catch (err) {
    throw new UsageError(`${what} ${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function dereference(doc: unknown, label: string): Promise<OpenApiDocument> {
  try {
    // validate() checks the document against the OpenAPI 3.1 schema and resolves $refs.
    return (await SwaggerParser.validate(structuredClone(doc) as never)) as OpenApiDocument;
  } catch (err) {
    throw new UsageError(`${label} is not a valid OpenAPI 3.1 document: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Applies an OpenAPI Overlay 1.0 document; an action that matches nothing is a user error. */
export async function applyOverlay(doc: unknown, overlay: unknown, overlayPath: string): Promise<{ data: unknown; actions: number }> {
  if (!validateOverlayShape(overlay)) {
    const first = validateOverlayShape.errors?.[0];
    throw new UsageError(
      `overlay ${overlayPath} is not an OpenAPI Overlay 1.0 document: ${first?.instancePath || '(root)'} ${first?.message ?? ''}`.trim(),
    );
  }
  const ov = overlay as { actions: OverlayAction[] };
  const result = await openapiOverlay(structuredClone(doc), { overlaySet: overlay });
  const unused = result.resultData.unusedActions;
  if (unused.length > 0) {
    const index = ov.actions.indexOf(unused[0]!) + 1;
    throw new UsageError(`overlay ${overlayPath}: action #${index} (target ${unused[0]!.target}) matches nothing in the document`);
  }
  return { data: result.data, actions: ov.actions.length };
}

export async function loadSpec(overlayPath?: string): Promise<LoadedSpec> {
  const raw = await readYamlFile(BASE_SPEC_PATH, 'spec');
  const base = await dereference(raw, `spec ${BASE_SPEC_PATH}`);
  if (!overlayPath) return { base, merged: base, overlayActions: 0 };
  const overlay = await readYamlFile(overlayPath, 'overlay');
  const { data, actions } = await applyOverlay(raw, overlay, overlayPath);
  const merged = await dereference(data, `the document after applying overlay ${overlayPath}`);
  return { base, merged, overlayPath, overlayActions: actions };
}
