import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../spec/errors.ts';
import { TargetUnreachable } from '../engine/transport/http.ts';
import { StartupFailure } from '../engine/identity/startup-failure.ts';
import { RunNotStarted } from '../engine/run/startup-report.ts';
import type { ToolInfo } from '../engine/run/runner.ts';
import { resolveRunOptions, parseCliArgs, parseArgsOptions, REFERENCE_FLAGS, type FlagValues } from './options.ts';
import { usage } from './help.ts';
import { DEFAULT_S3_REGION, DEFAULT_TIME_SCALE } from './defaults.ts';
import { runCommand, dryRunCommand, REFERENCE_OVERLAY_PATH } from './run.ts';
import { startBufferReaper } from './memory.ts';
import { overlayCommand } from './overlay.ts';
import { diffCommand } from './diff.ts';
import { verifyCommand } from './verify.ts';
import { tokenCommand } from './token.ts';
import {
  startReference,
  FAULTS,
  HOSTILE_FAULTS,
  VARIANTS,
  startEmbeddedS3,
  S3_FAULTS,
  S3_VARIANTS,
  makeTlsMaterial,
  type TlsMaterial,
  type ReferenceTarget,
  type EmbeddedS3,
} from './embedded.ts';

export function toolInfo(): ToolInfo {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: pkg.name, version: pkg.version };
}

async function referenceCommand(args: string[]): Promise<number> {
  const { values } = parseCliArgs(args, parseArgsOptions(REFERENCE_FLAGS));
  if (values['help']) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  if (values['list-variants']) {
    listReferenceVariants();
    return 0;
  }
  if (values['list-faults']) {
    listReferenceFaults();
    return 0;
  }
  const port = referencePort(values['port'] as string | undefined);
  const timeScale = referenceTimeScale(values['time-scale'] as string | undefined);
  // --tls: a CA made for this start signs the server certificate (and, with --require-client-cert, a client's).
  const requireClientCert = values['require-client-cert'] === true;
  const tlsMaterial =
    values['tls'] || requireClientCert ? await makeTlsMaterial({ clientCert: requireClientCert }) : undefined;
  const { target, s3 } = await startReferenceTargets(values, { tlsMaterial, requireClientCert, port, timeScale });
  printReferenceSettings(target, s3, tlsMaterial, timeScale);
  await untilStopped();
  await s3.close();
  await target.close();
  tlsMaterial?.remove();
  return 0;
}

/** `reference --list-variants`: the conforming variants, one a line. */
function listReferenceVariants(): void {
  // Conforming variants: name, the unshown items whose choice they make differently, dimension, description.
  for (const v of VARIANTS)
    process.stdout.write(`${v.name}\t${v.unshown.join(',')}\t${v.dimension}\t${v.description}\n`);
  for (const v of S3_VARIANTS)
    process.stdout.write(`${v.name}\t${v.unshown.join(',')}\t${v.dimension}\t(--s3-variant) ${v.description}\n`);
}

/** `reference --list-faults`: the faults the reference and its S3 endpoint can inject, one a line. */
function listReferenceFaults(): void {
  // The contract's level column is must or should: a declared fault fails the verdict like a must one,
  // provided the run holds the target to its overlay (the embedded default does).
  for (const f of [...FAULTS, ...HOSTILE_FAULTS]) {
    const level = f.level === 'should' ? 'should' : 'must';
    const note = f.level === 'declared' ? `(declared in ${REFERENCE_OVERLAY_PATH}) ` : '';
    process.stdout.write(`${f.name}\t${level}\t${f.clauses.join(',')}\t${note}${f.description}\n`);
  }
  // Object storage faults (--s3-fault), injected by the embedded S3 endpoint's front proxy.
  for (const f of S3_FAULTS)
    process.stdout.write(`${f.name}\t${f.level}\t${f.clauses.join(',')}\t(--s3-fault) ${f.description}\n`);
}

/** `reference --port`: 0 (any free port) when absent. */
function referencePort(raw: string | undefined): number {
  const port = raw === undefined ? 0 : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer 0-65535, got ${JSON.stringify(raw)}`);
  return port;
}

/** `reference --time-scale`: the run's default when absent. */
function referenceTimeScale(raw: string | undefined): number {
  const timeScale = raw === undefined ? DEFAULT_TIME_SCALE : Number(raw);
  if (!Number.isFinite(timeScale) || timeScale <= 0)
    throw new UsageError(`--time-scale must be a positive number, got ${JSON.stringify(raw)}`);
  return timeScale;
}

/**
 * Starts the reference target, then the embedded S3 endpoint, serving HTTPS with the TLS material if any; a start
 * that fails is a usage error, and whatever had started is stopped and the TLS files removed.
 */
async function startReferenceTargets(
  values: FlagValues,
  opts: { tlsMaterial: TlsMaterial | undefined; requireClientCert: boolean; port: number; timeScale: number }
): Promise<{ target: ReferenceTarget; s3: EmbeddedS3 }> {
  const { tlsMaterial, requireClientCert, port, timeScale } = opts;
  const tls = tlsMaterial && {
    cert: tlsMaterial.serverCertPem,
    key: tlsMaterial.serverKeyPem,
    ca: tlsMaterial.caPem,
    requestCert: requireClientCert,
  };
  let target;
  try {
    const population = values['population'] === undefined ? undefined : Number(values['population']);
    target = await startReference({
      tls,
      port,
      faults: (values['fault'] as string[] | undefined) ?? [],
      variants: (values['variant'] as string[] | undefined) ?? [],
      timeScale,
      population,
    });
  } catch (err) {
    tlsMaterial?.remove();
    throw new UsageError((err as Error).message);
  }
  try {
    const s3 = await startEmbeddedS3({
      tls,
      faults: (values['s3-fault'] as string[] | undefined) ?? [],
      variants: (values['s3-variant'] as string[] | undefined) ?? [],
    });
    return { target, s3 };
  } catch (err) {
    await target.close();
    tlsMaterial?.remove();
    throw new UsageError((err as Error).message);
  }
}

/** The settings on stdout as one JSON line (for a program), and for a person on stderr the lines of runLinesFor. */
function printReferenceSettings(
  target: ReferenceTarget,
  s3: EmbeddedS3,
  tlsMaterial: TlsMaterial | undefined,
  timeScale: number
): void {
  const { s3Url, s3AccessKey, s3SecretKey, s3Region } = s3.settings;
  const { caFile, clientCertFile, clientKeyFile } = tlsMaterial?.files ?? {};
  const settings = {
    ...target.settings,
    s3Url,
    s3AccessKey,
    s3SecretKey,
    s3Region,
    caFile,
    clientCertFile,
    clientKeyFile,
  };
  process.stdout.write(JSON.stringify(settings) + '\n');
  if (tlsMaterial)
    process.stderr.write('reference: HTTPS, certificate signed by a CA made for this start (removed when it stops)\n');
  process.stderr.write(runLinesFor({ ...settings, timeScale }).join('\n') + '\n');
}

/** Resolves when the reference should stop: a signal, or the run or launcher that started it went away. */
function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // Started by a run (fixtures/reference/process.ts): the run's end, or its death, closes the channel.
    process.once('disconnect', stop);
    // Started through a launcher that was killed (npx, a shell's job, the bin's own restart): go with it.
    const parent = process.ppid;
    if (parent > 1) setInterval(() => process.ppid !== parent && stop(), 500).unref();
  });
}

/** What `reference` prints for a person: the environment and the `run` line that point the suite at it, and how to stop it. */
export function runLinesFor(s: {
  baseUrl: string;
  apiKey: string;
  apiKeyB: string;
  apiKeyReadonly: string;
  image: string;
  subnetId: string;
  subnetIdB: string;
  s3Url: string;
  s3AccessKey: string;
  s3SecretKey: string;
  s3Region: string;
  caFile?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  /** The reference's time scale: a run against it must use the same, or its waits are the wrong length. */
  timeScale?: number;
}): string[] {
  const env = [
    `CONFORMANCE_API_KEY=${s.apiKey}`,
    `CONFORMANCE_API_KEY_B=${s.apiKeyB}`,
    `CONFORMANCE_API_KEY_READONLY=${s.apiKeyReadonly}`,
    `CONFORMANCE_S3_ACCESS_KEY=${s.s3AccessKey}`,
    `CONFORMANCE_S3_SECRET_KEY=${s.s3SecretKey}`,
  ];
  const tls = `${s.caFile ? ` --ca-file ${s.caFile}` : ''}${s.clientCertFile ? ` --client-cert ${s.clientCertFile} --client-key ${s.clientKeyFile}` : ''}`;
  return [
    'reference: to run the suite against it (keys in the environment, never on the command line):',
    `  export ${env.join(' ')}`,
    `  npx cloud-conformance run --base-url ${s.baseUrl}${tls} --image ${s.image} --subnet-id ${s.subnetId} --subnet-id-b ${s.subnetIdB} --s3-url ${s.s3Url}${s.s3Region !== DEFAULT_S3_REGION ? ` --s3-region ${s.s3Region}` : ''}${s.timeScale !== undefined && s.timeScale !== DEFAULT_TIME_SCALE ? ` --time-scale ${s.timeScale}` : ''}`,
    `reference: serving until Ctrl-C or SIGTERM (kill ${process.pid}); it also stops when the command that started it ends`,
  ];
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === '--version' || command === '-v') {
      process.stdout.write(`${toolInfo().version}\n`);
      return 0;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(usage() + '\n');
      return command === undefined ? 2 : 0;
    }
    if (command === 'reference') return await referenceCommand(rest);
    if (command === 'diff') return diffCommand(rest, (l) => process.stdout.write(l + '\n'));
    if (command === 'verify')
      return await verifyCommand(rest, toolInfo().version, (l) => process.stdout.write(l + '\n'));
    if (command === 'overlay')
      return await overlayCommand(
        rest,
        (l) => process.stdout.write(l + '\n'),
        (l) => process.stderr.write(l + '\n')
      );
    if (command === 'token')
      return await tokenCommand(
        rest,
        (line) => process.stdout.write(line + '\n'),
        (line) => process.stderr.write(line + '\n')
      );
    if (command === 'run') {
      const opts = resolveRunOptions(rest);
      if (opts.help) {
        process.stdout.write(usage() + '\n');
        return 0;
      }
      if (opts.dryRun) return await dryRunCommand(opts, toolInfo(), (line) => process.stdout.write(line + '\n'));
      const stopReaper = startBufferReaper();
      const { exitCode } = await runCommand(opts, toolInfo(), (line) => process.stdout.write(line + '\n'), {
        terminal: {
          write: (t) => process.stdout.write(t),
          isTTY: process.stdout.isTTY === true,
          columns: process.stdout.columns,
        },
        env: process.env,
      }).finally(stopReaper);
      return exitCode;
    }
    throw new UsageError(
      `unknown command ${JSON.stringify(command)} (commands: run, token, diff, verify, reference, overlay)`
    );
  } catch (err) {
    if (
      err instanceof UsageError ||
      err instanceof TargetUnreachable ||
      err instanceof StartupFailure ||
      err instanceof RunNotStarted
    ) {
      process.stderr.write(`cloud-conformance: ${err.message}\n`);
      return 2;
    }
    // Anything else is a defect of the suite; still one line, no stack, exit 2.
    process.stderr.write(`cloud-conformance: internal error: ${(err as Error).message ?? String(err)}\n`);
    if (process.env['CONFORMANCE_DEBUG']) process.stderr.write(`${(err as Error).stack}\n`);
    return 2;
  }
}
