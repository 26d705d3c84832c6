import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../spec/errors.ts';
import { TargetUnreachable } from '../engine/transport/http.ts';
import { StartupFailure } from '../engine/identity/startup-failure.ts';
import { RunNotStarted } from '../engine/run/startup-report.ts';
import type { ToolInfo } from '../engine/run/runner.ts';
import { resolveRunOptions, parseCliArgs, type FlagValues } from './options.ts';
import { runCommand, dryRunCommand, REFERENCE_OVERLAY_PATH } from './run.ts';
import { startBufferReaper } from './memory.ts';
import { overlayCommand } from './overlay.ts';
import { diffCommand } from './diff.ts';
import { verifyCommand } from './verify.ts';
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

const USAGE = `usage:
  cloud-conformance run [options]          run the suite (default target: the embedded reference)
  cloud-conformance reference [options]    serve the reference target on 127.0.0.1
  cloud-conformance overlay check FILE     validate an overlay against the vocabulary (spec/README.md): unknown or
                                           misplaced terms, unknown error cases, targets that match nothing
  cloud-conformance diff OLD.json NEW.json what changed between two runs' JSON reports, by check and by clause;
                                           exit 1 on a regression (--format terminal|json|markdown, --output FILE)
  cloud-conformance verify REPORT.json     recompute a JSON report's digests and confirm its verdict, summary and
                                           coverage follow from its checks; exit 1 if not (--public-key FILE checks
                                           the signature of a run made with --sign; --format terminal|json)
  cloud-conformance --version

run options:
  --base-url URL            target API host (default: start the embedded reference target)
  --api-key KEY             API key of the primary organization
  --api-key-b KEY           API key of a second organization
  --api-key-readonly KEY    API key whose owner may only read
  --api-key-revocable KEY   API key the run may revoke (where the overlay declares how), to check revocation
  --image NAME              image valid on the target for creating a VM
  --subnet-id ID            subnet valid on the target for creating a VM
  --subnet-id-b ID          a subnet of the second organization, for a create with --api-key-b
  --overlay FILE            OpenAPI Overlay 1.0 declaring the target's choices (checked as overlay check does)
  --only GROUPS             comma list of groups to run
  --profile quick|full|certify
                            quick (default): no long waits; full: waits out windows and token expiry;
                            certify: full, plus whatever makes each MUST check conclusive (creates within
                            --max-creates); incomplete (exit 3) unless every MUST clause is verified
  --require-complete        exit 3 (incomplete) when any MUST clause is not verified
  --max-creates N           most VMs the run may create (certify's default is what it needs; --dry-run prints it)
  --time-scale N            target-seconds per real second (default 1)
  --seed N                  seed for generated data
  --report FORMAT:PATH      json, junit or html; repeatable
  --runs N                  random cases of the property phase (default 10)
  --webhook-listen H:P      where the suite's webhook receiver listens (default 127.0.0.1:0)
  --webhook-url URL         the receiver's address as the target should post to it, when it differs
  --emit-overlay FILE       write what the run observed about the target's choices as an Overlay
  --expect FILE             known failures and warnings (YAML: check, clause, reason, reference): the verdict is
                            unchanged, the exit code is 1 only for a failure the file does not list
  --write-expect FILE       write the run's failures and warnings as such a file
  --strict-expect           with --expect: exit 1 when a listed failure no longer fails (the file shrinks as fixes land)
  --sign KEY                sign the JSON report's digests with this Ed25519 private key (PEM); verify --public-key checks it
  --expired-token TOKEN     a token known to be expired: the expiry check judges it without waiting
  --read-only               no writes at all; checks that need them are skipped with the reason
  --dry-run                 print the plan (groups, requests per endpoint, writes) and send nothing
  --insecure                do not verify TLS certificates (said loudly in the report)
  --ca-file FILE            PEM file of CAs trusted besides Node's own (NODE_EXTRA_CA_CERTS also works)
  --client-cert FILE, --client-key FILE
                            client certificate and key (PEM) for a target that requires mutual TLS; the key's
                            passphrase, if any, in CONFORMANCE_CLIENT_KEY_PASSPHRASE
  --reference-tls           the embedded reference target serves HTTPS (a CA made for the run, trusted by it)
  --allow-writes N          real creates the write-limit probe may make if writes that create nothing are not counted
  --task-timeout SECONDS    target-seconds a task may take to finish (default 120)
  --request-timeout SECONDS seconds allowed per request (default 15)
  --quiet                   no progress output
  --sequential              one check at a time (by default checks that share no budget and no state run
                            concurrently; the statuses are the same either way)
  --s3-url URL              object storage endpoint (default: the embedded s3rver when the API target is
                            embedded; with --base-url and no --s3-url the s3 group is skipped)
  --s3-access-key KEY, --s3-secret-key SECRET, --s3-region NAME (default us-east-1)
  --s3-path-style (default) | --s3-virtual-host   addressing style
  Settings also come from CONFORMANCE_BASE_URL, CONFORMANCE_API_KEY, CONFORMANCE_API_KEY_B,
  CONFORMANCE_API_KEY_READONLY, CONFORMANCE_IMAGE, CONFORMANCE_SUBNET_ID, CONFORMANCE_OVERLAY,
  CONFORMANCE_S3_URL, CONFORMANCE_S3_ACCESS_KEY, CONFORMANCE_S3_SECRET_KEY, CONFORMANCE_S3_REGION,
  CONFORMANCE_CA_FILE, CONFORMANCE_CLIENT_CERT, CONFORMANCE_CLIENT_KEY and .env.
  Proxies: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or lower case) are honoured for the API and object storage
  (not for the embedded targets, which are on this machine).

reference options:
  --tls  (HTTPS; the CA file to pass to run --ca-file is named in the settings line, caFile)
  --require-client-cert  (implies --tls; refuses clients without a certificate; clientCertFile, clientKeyFile)
  --port N  --fault NAME (repeatable)  --variant NAME (repeatable)  --s3-fault NAME (repeatable)
  --s3-variant NAME (repeatable)  --time-scale N  --population N (pre-existing VMs, every third tagged)
  --list-faults  --list-variants

exit codes: 0 conformant (overlay check: valid), 1 nonconformant, 2 could not run, or overlay check found problems,
  or the target refused the run's own --image, --subnet-id or --api-key (the reason on stderr; --report json says what
  the target did, verdict error), 3 incomplete (a check could not run, or with --profile certify / --require-complete
  a MUST clause was not verified), 4 left resources behind (the run would have ended 0 or 3; each is listed with a
  delete command)

every option in detail: docs/options.md; the rest of the documentation: docs/README.md`;

export function toolInfo(): ToolInfo {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: pkg.name, version: pkg.version };
}

/** The flags of `reference`. */
const REFERENCE_OPTIONS = {
  tls: { type: 'boolean' },
  'require-client-cert': { type: 'boolean' },
  port: { type: 'string' },
  fault: { type: 'string', multiple: true },
  variant: { type: 'string', multiple: true },
  's3-fault': { type: 'string', multiple: true },
  's3-variant': { type: 'string', multiple: true },
  'time-scale': { type: 'string' },
  population: { type: 'string' },
  'list-faults': { type: 'boolean' },
  'list-variants': { type: 'boolean' },
} satisfies Parameters<typeof parseCliArgs>[1];

async function referenceCommand(args: string[]): Promise<number> {
  const { values } = parseCliArgs(args, REFERENCE_OPTIONS);
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
  printReferenceSettings(target, s3, tlsMaterial);
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

/** `reference --time-scale`: 1 when absent. */
function referenceTimeScale(raw: string | undefined): number {
  const timeScale = raw === undefined ? 1 : Number(raw);
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
function printReferenceSettings(target: ReferenceTarget, s3: EmbeddedS3, tlsMaterial: TlsMaterial | undefined): void {
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
  process.stderr.write(runLinesFor(settings).join('\n') + '\n');
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
    `  npx cloud-conformance run --base-url ${s.baseUrl}${tls} --image ${s.image} --subnet-id ${s.subnetId} --subnet-id-b ${s.subnetIdB} --s3-url ${s.s3Url}${s.s3Region !== 'us-east-1' ? ` --s3-region ${s.s3Region}` : ''}`,
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
      process.stdout.write(USAGE + '\n');
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
    if (command === 'run') {
      const opts = resolveRunOptions(rest);
      if (opts.help) {
        process.stdout.write(USAGE + '\n');
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
      `unknown command ${JSON.stringify(command)} (commands: run, diff, verify, reference, overlay)`
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
