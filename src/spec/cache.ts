// What a run derives from the documents that ship with the suite (the parse of spec/*.yaml, the dereferenced base and
// shipped-overlay documents) is kept under node_modules/.cache between runs, keyed by a digest of everything it was
// derived from: an edited document, a changed deriving source or a reinstalled dependency tree derives afresh.
// Each entry is written whole or not at all; an unreadable entry is a miss; a read-only install derives every time.
// CONFORMANCE_NO_CACHE=1 neither reads nor writes it (everything derived afresh, as `npm run bench` measures "before").
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DERIVED_CACHE_DIR = path.join(PACKAGE_ROOT, 'node_modules', '.cache', 'cloud-conformance', 'derived');

export const digestOf = (...parts: Array<string | Uint8Array>): string => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p).update('\0');
  return hash.digest('hex').slice(0, 16);
};

/** The installed dependency tree as npm last wrote it (empty when the suite is itself installed as a dependency). */
export function dependencyTreeStamp(): string {
  try {
    const s = statSync(path.join(PACKAGE_ROOT, 'node_modules', '.package-lock.json'));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}

const disabled = () => process.env.CONFORMANCE_NO_CACHE === '1';

/** The file of name's entry under key; ext (e.g. .cjs) where the file is loaded as a module. */
const entryFile = (name: string, key: string, ext = '') =>
  path.join(DERIVED_CACHE_DIR, `${name.replace(/[^A-Za-z0-9.-]/g, '_')}-${key}${ext}`);

/** The file of name's entry under key when it exists (for an entry loaded as a module), else undefined. */
export function derivedFile(name: string, key: string, ext = ''): string | undefined {
  const file = entryFile(name, key, ext);
  return !disabled() && existsSync(file) ? file : undefined;
}

/** The entry for name under key, or undefined when there is none (or it cannot be read). */
export function readDerived(name: string, key: string, ext = ''): Buffer | undefined {
  if (disabled()) return undefined;
  try {
    return readFileSync(entryFile(name, key, ext));
  } catch {
    return undefined;
  }
}

/** Keeps data as the entry for name under key, replacing the entries of name under other keys. */
export function writeDerived(name: string, key: string, data: string | Uint8Array, ext = ''): void {
  if (disabled()) return;
  const file = entryFile(name, key, ext);
  try {
    mkdirSync(DERIVED_CACHE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, file);
    const stem = `${path.basename(entryFile(name, ''))}`;
    for (const old of readdirSync(DERIVED_CACHE_DIR))
      if (old.startsWith(stem) && old !== path.basename(file) && !old.endsWith('.tmp'))
        rmSync(path.join(DERIVED_CACHE_DIR, old), { force: true });
  } catch {
    // A read-only install: the next run derives again.
  }
}
