import { writeFileSync } from 'node:fs';
import { UsageError } from '../spec/errors.ts';
import { readReport } from './report-file.ts';
import { diffMarkdown, diffReports, diffText } from '../report/diff.ts';

const USAGE = 'usage: cloud-conformance diff OLD.json NEW.json [--format terminal|json|markdown] [--output FILE]';

/**
 * cloud-conformance diff OLD NEW: what changed between two runs, by check and by clause. Exit 1 on a regression (a
 * check or clause newly failing, a clause no longer verified), 0 otherwise, 2 on bad input.
 */
export function diffCommand(args: string[], out: (line: string) => void): number {
  const files: string[] = [];
  let format = 'terminal';
  let output: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--format') format = args[++i] ?? '';
    else if (a === '--output') output = args[++i];
    else if (a.startsWith('-')) throw new UsageError(`unknown option ${a} (${USAGE})`);
    else files.push(a);
  }
  if (files.length !== 2) throw new UsageError(USAGE);
  if (!['terminal', 'json', 'markdown'].includes(format))
    throw new UsageError(`--format must be terminal, json or markdown (${USAGE})`);
  const d = diffReports(readReport(files[0]!), readReport(files[1]!));
  const text =
    format === 'json'
      ? JSON.stringify(d, null, 2) + '\n'
      : format === 'markdown'
        ? diffMarkdown(d)
        : diffText(d).join('\n') + '\n';
  if (output) writeFileSync(output, text);
  else for (const line of text.replace(/\n$/, '').split('\n')) out(line);
  return d.regression ? 1 : 0;
}
