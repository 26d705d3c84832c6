// What `cloud-conformance --help` prints: the commands, then every option and environment variable, from the one table
// in options.ts (docs/options.md is held to the same table by test/cli/options.test.ts).
import { OTHER_VARIABLES, REFERENCE_FLAGS, RUN_FLAGS, type OptionSpec } from './options.ts';

const WIDTH = 118;
/** Where an option's description starts. */
const COLUMN = 28;

const COMMANDS = `usage:
  cloud-conformance run [options]          run the suite (default target: the embedded reference)
  cloud-conformance token [run options]    print a token for the primary key, for the report's curl lines (which
                                           read it as $CONFORMANCE_TOKEN); waits out a spent issuance budget
  cloud-conformance reference [options]    serve the reference target on 127.0.0.1
  cloud-conformance overlay check FILE     validate an overlay against the vocabulary (spec/README.md): unknown or
                                           misplaced terms, unknown error cases, targets that match nothing
  cloud-conformance diff OLD.json NEW.json what changed between two runs' JSON reports, by check and by clause;
                                           exit 1 on a regression (--format terminal|json|markdown, --output FILE)
  cloud-conformance verify REPORT.json     recompute a JSON report's digests and confirm its verdict, summary and
                                           coverage follow from its checks; exit 1 if not (--public-key FILE checks
                                           the signature of a run made with --sign; --format terminal|json)
  cloud-conformance --version`;

const EXIT_CODES = `exit codes: 0 conformant (overlay check: valid), 1 nonconformant, 2 could not run, or overlay check found problems,
  or the target refused the run's own --image, --subnet-id or --api-key (the reason on stderr; --report json says what
  the target did, verdict error), 3 incomplete (a check could not run, or with --profile certify / --require-complete
  a MUST clause was not verified), 4 left resources behind (the run would have ended 0 or 3; each is listed with a
  delete command)

every option in detail: docs/options.md; the rest of the documentation: docs/README.md`;

/** Words laid out in lines of at most WIDTH, after `head` padded to COLUMN (or on the next line when it is longer). */
function entry(head: string, text: string): string[] {
  const lines: string[] = [];
  const indent = ' '.repeat(COLUMN);
  if (head.length >= COLUMN - 1) lines.push(head);
  let line = head.length >= COLUMN - 1 ? indent : head.padEnd(COLUMN);
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += `${empty ? '' : ' '}${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** Each option of a table: its flag, value and help, and the variable that also sets it. */
function optionLines(table: Record<string, OptionSpec>): string[] {
  return Object.entries(table).flatMap(([flag, o]) =>
    entry(
      `  ${o.short ? `-${o.short}, ` : ''}--${flag}${o.value ? ` ${o.value}` : ''}`,
      `${o.help}${o.env ? ` [${o.env}]` : ''}`
    )
  );
}

/** The whole of --help. */
export function usage(): string {
  return [
    COMMANDS,
    '',
    'run options (a [VARIABLE] also sets it: a flag wins over the environment, which wins over .env in the working',
    'directory):',
    ...optionLines(RUN_FLAGS),
    '',
    'other environment variables:',
    ...OTHER_VARIABLES.flatMap((v) => entry(`  ${v.names.join(', ')}`, v.help)),
    '',
    'reference options:',
    ...optionLines(REFERENCE_FLAGS),
    '',
    EXIT_CODES,
  ].join('\n');
}
