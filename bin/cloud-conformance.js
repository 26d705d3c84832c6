#!/usr/bin/env node
// Runs the CLI from a bundle of the TypeScript sources: built with esbuild on first use, rebuilt whenever a source
// changes, cached under node_modules/.cache. No build step after `npm ci`, and no TypeScript loader thread at run time
// (about 35 MB less memory and a faster start than loading the sources through tsx). If the bundle cannot be built,
// or CONFORMANCE_NO_BUNDLE=1, the sources are loaded through tsx as before.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'suites', 'fixtures'];
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'cloud-conformance');
const ZOO = path.join(ROOT, 'fixtures', 'zoo');

// A closed pipe (| head) ends output quietly instead of with a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

/** Every source the CLI may load (TypeScript, and the engine's shared ES2015 modules), with its size and modification time: the bundle's cache key. */
function sourceKey() {
  const hash = createHash('sha256').update(process.version);
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, entry.name);
      // The zoo's members are other programs (their own packages and builds): the CLI bundles none of them.
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'build' && p !== ZOO) visit(p);
      } else if (/\.(ts|js)$/.test(entry.name)) {
        const s = statSync(p);
        hash.update(`${path.relative(ROOT, p)}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  for (const dir of SOURCES) visit(path.join(ROOT, dir));
  hash.update(readFileSync(path.join(ROOT, 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

async function bundle() {
  const key = sourceKey();
  const file = path.join(CACHE, `cli-${key}.mjs`);
  if (existsSync(file)) return file;
  const { build } = await import('esbuild');
  const tmp = `${file}.${process.pid}.tmp`;
  mkdirSync(CACHE, { recursive: true });
  await build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: tmp,
    logLevel: 'silent',
    plugins: [
      {
        // Each module keeps its own import.meta.url, so paths it resolves (spec/, package.json, the s3rver child) stay right.
        name: 'keep-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href)
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  renameSync(tmp, file);
  // Older bundles of sources that have since changed.
  for (const old of readdirSync(CACHE))
    if (old.startsWith('cli-') && old !== path.basename(file) && !old.endsWith('.tmp'))
      rmSync(path.join(CACHE, old), { force: true });
  return file;
}

/**
 * V8's young generation grows to 16 MiB semi-spaces by default, which a run's many short-lived response bodies fill
 * and keep resident (about 25 MB of peak RSS); dead Buffers wait for a collection until about 64 MB of them are held
 * (src/cli/memory.ts collects them sooner, given gc). The CLI runs itself once more with 4 MiB semi-spaces and
 * --expose-gc, unless the flag is already given (node --max-semi-space-size=N, NODE_OPTIONS) or CONFORMANCE_NO_REEXEC=1.
 */
const SEMI_SPACE_FLAG = '--max-semi-space-size';
function needsReexec() {
  if (process.env.CONFORMANCE_NO_REEXEC === '1') return false;
  return ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
    a.startsWith(SEMI_SPACE_FLAG)
  );
}

if (needsReexec()) {
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    [
      `${SEMI_SPACE_FLAG}=4`,
      '--expose-gc',
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' }
  );
  // Ctrl-C reaches both processes from the terminal: this one waits while the run cleans up, and exits as it does.
  // A second SIGINT would cut the cleanup short, so it is not passed on; SIGTERM and SIGHUP are.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
  // Started through a launcher (npx, a shell's job) that was killed: this process is reparented, and goes with it
  // instead of leaving the child (a reference target, a run) behind.
  const parent = process.ppid;
  if (parent > 1) {
    setInterval(() => {
      if (process.ppid !== parent) child.kill('SIGTERM');
    }, 500).unref();
  }
} else {
  await runCli();
}

async function runCli() {
  let main;
  if (process.env.CONFORMANCE_NO_BUNDLE !== '1') {
    try {
      ({ main } = await import(pathToFileURL(await bundle()).href));
    } catch {
      main = undefined;
    }
  }
  if (!main) {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
  process.exitCode = await main(process.argv.slice(2));
}
