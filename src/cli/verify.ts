import { writeFileSync } from 'node:fs';
import { UsageError } from '../spec/errors.ts';
import { loadClauses } from '../spec/clauses.ts';
import { specDigests } from '../engine/run/digests.ts';
import { allChecks } from '../../suites/index.ts';
import { readPublicKey } from '../report/integrity.ts';
import { verificationText, verifyReport } from '../report/verify.ts';
import { readReport } from './report-file.ts';

const USAGE =
  'usage: cloud-conformance verify REPORT.json [--public-key FILE] [--format terminal|json] [--output FILE]';

/**
 * cloud-conformance verify REPORT: recompute the report's digests, check its signature against --public-key, and
 * confirm its verdict, summary and coverage follow from its check statuses. Exit 0 verified, 1 not, 2 bad input.
 */
export async function verifyCommand(args: string[], version: string, out: (line: string) => void): Promise<number> {
  const files: string[] = [];
  let publicKeyFile: string | undefined;
  let format = 'terminal';
  let output: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--public-key') publicKeyFile = args[++i];
    else if (a === '--format') format = args[++i] ?? '';
    else if (a === '--output') output = args[++i];
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a} (${USAGE})`);
    else files.push(a);
  }
  if (files.length !== 1) throw new UsageError(USAGE);
  if (!['terminal', 'json'].includes(format)) throw new UsageError(`--format must be terminal or json (${USAGE})`);
  if (args.includes('--public-key') && !publicKeyFile) throw new UsageError(`--public-key needs a file (${USAGE})`);
  const publicKey = publicKeyFile ? readPublicKey(publicKeyFile) : undefined;
  const report = readReport(files[0]!);
  const v = verifyReport(
    report,
    { version, digests: specDigests(), clauses: await loadClauses(), checks: allChecks },
    publicKey
  );
  const text = format === 'json' ? JSON.stringify(v, null, 2) + '\n' : verificationText(files[0]!, v).join('\n') + '\n';
  if (output) writeFileSync(output, text);
  else for (const line of text.replace(/\n$/, '').split('\n')) out(line);
  return v.verified ? 0 : 1;
}
