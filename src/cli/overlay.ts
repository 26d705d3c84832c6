import { lintOverlay } from '../spec/load.ts';
import { formatProblem } from '../spec/overlay-check.ts';
import { UsageError } from '../spec/errors.ts';

/**
 * cloud-conformance overlay check FILE: validates an overlay against the vocabulary (spec/README.md). Exit 0 with a
 * one-line summary when it is valid; 2 with one line per problem, each naming the action, its target and the term.
 */
export async function overlayCommand(
  args: string[],
  out: (line: string) => void,
  err: (line: string) => void
): Promise<number> {
  const [sub, file, ...rest] = args;
  if (sub !== 'check' || file === undefined || file.startsWith('-') || rest.length) {
    throw new UsageError('usage: cloud-conformance overlay check FILE');
  }
  const r = await lintOverlay(file);
  if (r.problems.length) {
    for (const p of r.problems) err(`cloud-conformance: ${formatProblem(file, p)}`);
    return 2;
  }
  const terms = Object.keys(r.terms);
  out(
    `overlay ${file}: valid (${r.actions} actions, ${terms.length} terms of the vocabulary${terms.length ? `: ${terms.join(', ')}` : ''})`
  );
  return 0;
}
