// `cloud-conformance token`: a bearer token for the primary key on stdout, for the curl lines of a report. It takes the
// run's options and reads the key as a run does (the environment, then .env), so the line a report prints puts no
// secret on a command line; a spent issuance budget (429) is waited out as Retry-After says, a bounded number of times,
// and saying so on stderr; an answer without a token is a one-line error and exit 2, never an empty token.
import { UsageError } from '../spec/errors.ts';
import { TokenManager, CredentialError } from '../engine/identity/tokens.ts';
import { StartupFailure } from '../engine/identity/startup-failure.ts';
import { HttpClient } from '../engine/transport/http.ts';
import { Redactor } from '../engine/transport/redact.ts';
import { Waits, type WaitCause } from '../engine/transport/waits.ts';
import { connectionSecrets, targetTls } from '../engine/transport/connection.ts';
import { INPUT_NAMES, KEY_VARIABLES, resolveRunOptions } from './options.ts';
import { readConnection } from './connection.ts';

/** Waits that say each wait before it, however short: the one who pasted the line is watching. */
class SaidWaits extends Waits {
  constructor(private readonly say: (line: string) => void) {
    super();
  }

  override async sleep(ms: number, what: string, by: string, cause: WaitCause): Promise<void> {
    this.say(`token: waiting ${(ms / 1000).toFixed(1)} s for ${what}`);
    return super.sleep(ms, what, by, cause);
  }
}

/** Prints the token (out) or fails; what it waits for goes to say (stderr). */
export async function tokenCommand(
  args: string[],
  out: (line: string) => void,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd()
): Promise<number> {
  const opts = resolveRunOptions(args, env, cwd);
  if (!opts.baseUrl) throw new UsageError(`token: ${INPUT_NAMES.baseUrl} (or CONFORMANCE_BASE_URL) is required`);
  if (!opts.apiKey)
    throw new UsageError(
      `missing credentials: ${KEY_VARIABLES.primary} (in the environment or .env, or ${INPUT_NAMES.primary}) is required`
    );
  const connection = readConnection(opts, env);
  const redactor = new Redactor();
  for (const secret of connectionSecrets(connection)) redactor.add(secret.value, secret.label);
  const http = new HttpClient(
    opts.baseUrl,
    {
      timeoutSeconds: opts.requestTimeoutSeconds,
      maxBodyBytes: opts.maxBodyBytes,
      tls: targetTls(connection, opts.insecure),
      proxy: connection?.proxy,
    },
    redactor
  );
  const naming = { names: INPUT_NAMES, keyVariables: KEY_VARIABLES };
  const tokens = new TokenManager(http, { primary: opts.apiKey }, opts.timeScale, redactor, new SaidWaits(say), naming);
  try {
    out((await tokens.issue('primary', 'token')).token);
    return 0;
  } catch (err) {
    if (!(err instanceof CredentialError)) throw err;
    const { baseUrl, requestTimeoutSeconds, maxBodyBytes } = opts;
    throw new StartupFailure(err.exchange, err.key, {
      baseUrl,
      requestTimeoutSeconds,
      maxBodyBytes,
      connection,
      names: INPUT_NAMES,
    });
  } finally {
    await http.close();
  }
}
