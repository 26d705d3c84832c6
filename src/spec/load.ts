import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parseShippedYaml, parseYaml } from './yaml.ts';
import { dependencyTreeStamp, digestOf, readDerived, writeDerived } from './cache.ts';
import { UsageError } from './errors.ts';
import { checkOverlay, OverlayInvalid, type OverlayProblem } from './overlay-check.ts';

export const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../spec');
export const BASE_SPEC_PATH = path.join(SPEC_DIR, 'openapi.yaml');

export type OpenApiDocument = OpenAPIV3_1.Document;

export interface LoadedSpec {
  /** The seed-derived document, $refs resolved. */
  base: OpenApiDocument;
  /** base + overlay, $refs resolved; equal to base when no overlay was given. */
  merged: OpenApiDocument;
  overlayPath?: string;
  overlayActions: number;
  /** Only documents that ship with the suite (the base, spec/overlays): the tests validate and compile them. */
  shipped: boolean;
}

// Loaded on first use: a run whose shipped documents come from the derived cache never loads it.
const swaggerParser = async () => (await import('@apidevtools/swagger-parser')).default;

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

async function readYamlFile(file: string, what: string, shipped = false, text?: string): Promise<unknown> {
  text ??= await readText(file, what);
  try {
    return shipped ? parseShippedYaml(file, text) : parseYaml(text);
  } catch (err) {
    throw new UsageError(`${what} ${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Documents validated in this process, by content: the overlay check and the run's load validate the merged document once. */
const validated = new Map<string, Promise<OpenApiDocument>>();

async function dereference(doc: unknown, label: string): Promise<OpenApiDocument> {
  const key = JSON.stringify(doc);
  let done = validated.get(key);
  if (!done) {
    // validate() checks the document against the OpenAPI 3.1 schema and resolves $refs.
    done = ((await swaggerParser()).validate(structuredClone(doc) as never) as Promise<OpenApiDocument>).catch(
      (err: Error) => {
        validated.delete(key);
        throw new UsageError(`${label} is not a valid OpenAPI 3.1 document: ${err.message.split('\n')[0]}`);
      }
    );
    validated.set(key, done);
  }
  // Each caller gets its own copy: checks and the schema compiler may annotate what they are given.
  return structuredClone(await done);
}

/**
 * The seed-derived document with its $refs resolved, not validated again: it ships with the suite and
 * test/spec/spec.test.ts validates it against OpenAPI 3.1.
 */
let baseDereferenced: Promise<OpenApiDocument> | undefined;
async function dereferenceBase(doc: unknown): Promise<OpenApiDocument> {
  baseDereferenced ??= swaggerParser().then(
    (parser) => parser.dereference(structuredClone(doc) as never) as Promise<OpenApiDocument>
  );
  return structuredClone(await baseDereferenced);
}

/**
 * Applies an OpenAPI Overlay 1.0 document after checking it against the vocabulary (src/spec/overlay-check.ts): an
 * unknown term, a term out of place or malformed, or an action that matches nothing is a user error naming its place.
 */
export async function applyOverlay(
  doc: unknown,
  overlay: unknown,
  overlayPath: string
): Promise<{ data: unknown; actions: number }> {
  const checked = await checkOverlay(doc, overlay);
  if (checked.problems.length) throw new OverlayInvalid(overlayPath, checked.problems);
  return { data: checked.data, actions: checked.actions };
}

/** The problems of an overlay (empty when it is valid), for `cloud-conformance overlay check`. */
export async function lintOverlay(
  overlayPath: string
): Promise<{ problems: OverlayProblem[]; actions: number; terms: Record<string, number> }> {
  const raw = await readYamlFile(BASE_SPEC_PATH, 'spec', true);
  const overlay = await readYamlFile(overlayPath, 'overlay', isShipped(overlayPath));
  const checked = await checkOverlay(raw, overlay);
  if (checked.problems.length) return checked;
  // The merged document must still be valid OpenAPI 3.1 with its $refs resolvable.
  try {
    await dereference(checked.data, `the document after applying overlay ${overlayPath}`);
  } catch (err) {
    return { ...checked, problems: [{ message: (err as Error).message }] };
  }
  return checked;
}

/** The overlays that ship with the suite (spec/overlays): test/spec/spec.test.ts validates what each makes of the base. */
export const SHIPPED_OVERLAYS_DIR = path.join(SPEC_DIR, 'overlays');
const isShipped = (overlayPath: string) => path.dirname(path.resolve(overlayPath)) === SHIPPED_OVERLAYS_DIR;

/** The sources whose code derives a loaded spec from its documents: a change to any of them derives afresh. */
const DERIVING_SOURCES = ['load.ts', 'overlay-check.ts', 'vocabulary.ts', 'yaml.ts', 'cache.ts'].map((f) =>
  path.join(path.dirname(fileURLToPath(import.meta.url)), f)
);
const PACKAGE_JSON = path.join(SPEC_DIR, '..', 'package.json');

/** The derived-cache key of a shipped base and overlay: their texts, the deriving code, the dependency tree (undefined when a source cannot be read: no cache). */
let derivingCode: Buffer[] | undefined;
function loadedSpecKey(baseText: string, overlayText: string): string | undefined {
  try {
    // Read once per process: the sources do not change under a running suite.
    derivingCode ??= [...DERIVING_SOURCES, PACKAGE_JSON].map((f) => readFileSync(f));
    return digestOf(baseText, overlayText, ...derivingCode, dependencyTreeStamp());
  } catch {
    return undefined;
  }
}

/**
 * The base (and overlay) dereferenced. A shipped pair is read from the derived cache (src/spec/cache.ts) when it
 * holds it, in V8's serialization, which keeps the sharing a dereferenced document has: the run then loads neither
 * the YAML parser, the overlay engine nor swagger-parser (about 0.3 s of a quick run's start on a small machine).
 */
export async function loadSpec(overlayPath?: string): Promise<LoadedSpec> {
  if (overlayPath && !isShipped(overlayPath)) return deriveSpec(overlayPath);
  const baseText = await readText(BASE_SPEC_PATH, 'spec');
  const overlayText = overlayPath ? await readText(overlayPath, 'overlay') : '';
  const name = `spec-${overlayPath ? path.basename(overlayPath) : 'base'}`;
  const key = loadedSpecKey(baseText, overlayText);
  if (key === undefined) return deriveSpec(overlayPath, baseText, overlayText);
  const cached = readDerived(name, key);
  if (cached) {
    try {
      const { base, merged, actions } = deserialize(cached) as {
        base: OpenApiDocument;
        merged: OpenApiDocument;
        actions: number;
      };
      return overlayPath
        ? { base, merged, overlayPath, overlayActions: actions, shipped: true }
        : { base, merged: base, overlayActions: 0, shipped: true };
    } catch {
      // A damaged entry: derive again below.
    }
  }
  const loaded = await deriveSpec(overlayPath, baseText, overlayText);
  writeDerived(name, key, serialize({ base: loaded.base, merged: loaded.merged, actions: loaded.overlayActions }));
  return loaded;
}

/** The base (and overlay) read, parsed, the overlay applied and checked, and dereferenced: what the cache keeps. */
export async function deriveSpec(overlayPath?: string, baseText?: string, overlayText?: string): Promise<LoadedSpec> {
  const raw = await readYamlFile(BASE_SPEC_PATH, 'spec', true, baseText);
  const base = await dereferenceBase(raw);
  if (!overlayPath) return { base, merged: base, overlayActions: 0, shipped: true };
  const shipped = isShipped(overlayPath);
  const overlay = await readYamlFile(overlayPath, 'overlay', shipped, overlayText || undefined);
  const { data, actions } = await applyOverlay(raw, overlay, overlayPath);
  // A shipped overlay's result is validated by the tests, as the base is; a user's is validated here (about 0.2 s).
  const merged = shipped
    ? ((await (await swaggerParser()).dereference(data as never)) as OpenApiDocument)
    : await dereference(data, `the document after applying overlay ${overlayPath}`);
  return { base, merged, overlayPath, overlayActions: actions, shipped };
}
