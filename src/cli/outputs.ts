// Every file a run writes (--report, --emit-overlay, --write-expect) is checked before anything is sent: a run that
// can only write its results at the end must not find out then that it cannot.
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../spec/errors.ts';
import type { RunOptions } from './options.ts';

/** The files a run writes, each with the flag that names it as the user typed it. */
function outputsOf(opts: Pick<RunOptions, 'reports' | 'emitOverlay' | 'writeExpect'>): Output[] {
  const extension = { json: 'json', junit: 'xml', html: 'html' } as Record<string, string>;
  return [
    ...opts.reports.map((r) => ({
      flag: `--report ${r.format}:${r.path}`,
      path: r.path,
      example: `report.${extension[r.format] ?? r.format}`,
    })),
    ...(opts.emitOverlay
      ? [{ flag: `--emit-overlay ${opts.emitOverlay}`, path: opts.emitOverlay, example: 'observed.overlay.yaml' }]
      : []),
    ...(opts.writeExpect
      ? [{ flag: `--write-expect ${opts.writeExpect}`, path: opts.writeExpect, example: 'expectations.yaml' }]
      : []),
  ];
}

interface Output {
  flag: string;
  path: string;
  /** A file name to suggest when the path given is a folder. */
  example: string;
}

/** Each output can be written: its folder exists, it is not a folder, nothing forbids writing it, no two share a path. */
export function checkOutputs(opts: Pick<RunOptions, 'reports' | 'emitOverlay' | 'writeExpect'>): void {
  const seen = new Map<string, string>();
  for (const { flag, path, example } of outputsOf(opts)) {
    const problem = whyNotWritable(path, example);
    if (problem) throw new UsageError(`${flag}: ${problem}`);
    const other = seen.get(resolve(path));
    if (other) throw new UsageError(`${flag}: ${other} writes the same file`);
    seen.set(resolve(path), flag);
  }
}

const stat = (path: string) => statSync(path, { throwIfNoEntry: false });

/**
 * Why a file cannot be written there, in words; undefined when it can. Tried for real (opened for appending, which
 * changes nothing, and removed again if it was not there): permissions, read-only mounts and special file systems
 * answer as they will at the end of the run.
 */
function whyNotWritable(path: string, example: string): string | undefined {
  const dir = dirname(path) || '.';
  try {
    const existing = stat(path);
    if (existing?.isDirectory()) return `a directory; give a file in it (e.g. ${join(path, example)})`;
    const parent = stat(dir);
    if (!parent) return `directory ${dir} does not exist`;
    if (!parent.isDirectory()) return `${dir} is not a directory`;
    closeSync(openSync(path, 'a'));
    if (!existing) unlinkSync(path);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return `${dir} is not a directory`;
    if (code === 'EACCES' || code === 'EPERM') return `cannot write there (permission denied)`;
    if (code === 'EROFS') return 'cannot write there (a read-only file system)';
    return `cannot write there (${code ?? (err as Error).message})`;
  }
}
