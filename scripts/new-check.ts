// npm run new-check <group>/<name>: scaffolds a check so that what the tests enforce is met by construction (one check
// per file, registered in its group's index.ts, a fault naming it, a fault probe in its group's module) and the first
// test run fails until the author writes the check, its clause, its fault and the probe (CONTRIBUTING.md says how).
// Options: --root DIR (the repository to write into; default this one: the tests scaffold into a copy).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: npm run new-check <group>/<name> [-- --root DIR]';
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** The user's own wrong input: one line, exit 2. */
class ScaffoldRefused extends Error {}

/** What a scaffold wrote, relative to the root. */
interface Scaffolded {
  id: string;
  fault: string;
  files: { created: string[]; changed: string[] };
}

const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The check's file: typed, registered, failing until written; its TODOs are what the quick tests reject. */
function checkSource(group: string, name: string, ident: string): string {
  return `import type { Check } from '../../src/engine/run/check.ts';
import { fail } from '../../src/engine/run/check.ts';

/** TODO: what the check holds the target to, in a line (scaffolded by npm run new-check; see CONTRIBUTING.md). */
export const ${ident}: Check = {
  id: '${group}.${name}',
  group: '${group}',
  // TODO: the clause ids of spec/clauses.yaml it verifies (test/spec/spec.test.ts refuses a check that cites none).
  clauses: [],
  level: 'must',
  why: { must: 'TODO: the seed sentence that makes it a MUST (or say should/declared, and why)' },
  title: 'TODO: what a conforming target does, as the report should say it',
  async run() {
    return fail('not written yet: ${group}.${name} was scaffolded by npm run new-check', []);
  },
};
`;
}

const faultStub = (group: string, name: string, fault: string) => `{
    // TODO (npm run new-check): rename after what it breaks, give its clauses, make the reference misbehave so
    // (fixtures/reference/), and list it in the fault model of its clause (spec/clauses.yaml).
    name: '${fault}',
    level: 'must',
    clauses: [],
    check: '${group}.${name}',
    description: 'TODO: what the target does wrong with this fault, in a line',
  }`;

const probeStub = (fault: string) => `{
    // TODO (npm run new-check): observe what the fault changes, on a clean target and on one with only this fault.
    name: '${fault}',
    probe: async () => 'not written yet',
    clean: 'TODO: what the clean reference answers',
    faulty: 'TODO: what the reference with only this fault answers',
  }`;

/** The array literal a variable of this name is initialized with. */
function arrayOf(sf: ts.SourceFile, variable: string): ts.ArrayLiteralExpression | undefined {
  let found: ts.ArrayLiteralExpression | undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && n.name.getText(sf) === variable && n.initializer) {
      if (ts.isArrayLiteralExpression(n.initializer)) found = n.initializer;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** The text with `item` appended to an array literal (its last element, or before its `]` when empty). */
function appendTo(text: string, arr: ts.ArrayLiteralExpression, item: string): string {
  const last = arr.elements[arr.elements.length - 1];
  if (!last) return text.slice(0, arr.getEnd() - 1) + item + text.slice(arr.getEnd() - 1);
  return text.slice(0, last.getEnd()) + `,\n  ${item}` + text.slice(last.getEnd());
}

/** The group's index.ts with the check imported and appended to the list its checks are in. */
function register(index: string, file: string, ident: string, name: string): string {
  const sf = ts.createSourceFile('index.ts', index, ts.ScriptTarget.Latest, true);
  const imports = sf.statements.filter(ts.isImportDeclaration);
  const checks = new Set(
    imports
      .filter((i) => ts.isStringLiteral(i.moduleSpecifier) && /^\.\/[^_][^/]*\.ts$/.test(i.moduleSpecifier.text))
      .flatMap((i) => {
        const b = i.importClause?.namedBindings;
        return b && ts.isNamedImports(b) ? b.elements.map((e) => e.name.text) : [];
      })
  );
  // The checks' list: the array literal naming the checks the index imports (the last, if several).
  let list: ts.ArrayLiteralExpression | undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isArrayLiteralExpression(n) && n.elements.some((e) => ts.isIdentifier(e) && checks.has(e.text))) list = n;
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (!list) throw new ScaffoldRefused(`new-check: ${file} has no list of checks to register ${name} in`);
  const withCheck = appendTo(index, list, ident);
  const at = imports[imports.length - 1]!.getEnd();
  return withCheck.slice(0, at) + `\nimport { ${ident} } from './${name}.ts';` + withCheck.slice(at);
}

async function formatted(file: string, text: string): Promise<string> {
  const options = await prettier.resolveConfig(file);
  return prettier.format(text, { ...options, filepath: file });
}

/** Why this group/name cannot be scaffolded, or undefined. */
function refusal(root: string, spec: string): string | undefined {
  const m = /^([^/]+)\/([^/]+)$/.exec(spec);
  if (!m) return `"${spec}" is not <group>/<name>`;
  const [, group, name] = m as unknown as [string, string, string];
  if (!existsSync(path.join(root, 'suites'))) return `${root} has no suites/: --root names the repository`;
  const groups = readdirSync(path.join(root, 'suites'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, 'suites', d.name, 'index.ts')))
    .map((d) => d.name);
  if (!groups.includes(group)) return `no group "${group}" (suites/<group>/index.ts): one of ${groups.join(', ')}`;
  if (!NAME.test(name)) return `"${name}" is not a check name: lower-case words joined by hyphens, like unknown-event`;
  if (existsSync(path.join(root, 'suites', group, `${name}.ts`))) return `suites/${group}/${name}.ts exists`;
  const dir = path.join(root, 'suites', group);
  const taken = readdirSync(dir).some((f) =>
    readFileSync(path.join(dir, f), 'utf8').includes(`id: '${group}.${name}'`)
  );
  if (taken) return `a check with id ${group}.${name} exists in suites/${group}/`;
  return undefined;
}

/** Scaffolds <group>/<name> under root; throws ScaffoldRefused on input the user got wrong. */
async function newCheck(spec: string, root = REPO): Promise<Scaffolded> {
  const why = refusal(root, spec);
  if (why) throw new ScaffoldRefused(`new-check: ${why}`);
  const [group, name] = spec.split('/') as [string, string];
  const indexFile = `suites/${group}/index.ts`;
  const index = readFileSync(path.join(root, indexFile), 'utf8');
  let ident = camel(name);
  if (new RegExp(`\\b${ident}\\b`).test(index)) ident = camel(`${group}-${name}`);
  if (new RegExp(`\\b${ident}\\b`).test(index))
    throw new ScaffoldRefused(`new-check: ${indexFile} already names ${ident}; choose another name`);
  const fault = `todo-${group}-${name}`;
  const s3 = group === 's3';
  const faultsFile = s3 ? 'fixtures/s3/faults.ts' : 'fixtures/reference/faults.ts';
  const probeFile = `test/reference/faults/${group}.ts`;
  const writes: Array<[string, string]> = [
    [`suites/${group}/${name}.ts`, checkSource(group, name, ident)],
    [indexFile, register(index, indexFile, ident, name)],
    [faultsFile, appended(root, faultsFile, s3 ? 'S3_FAULTS' : 'FAULTS', faultStub(group, name, fault))],
    // The S3 faults are probed by test/s3/s3.test.ts, not by a module of test/reference/faults/.
    ...(s3 ? [] : [[probeFile, appended(root, probeFile, 'faults', probeStub(fault))] as [string, string]]),
  ];
  for (const [file, text] of writes) writeFileSync(path.join(root, file), await formatted(path.join(root, file), text));
  const [created, ...changed] = writes.map(([f]) => f);
  return { id: `${group}.${name}`, fault, files: { created: [created!], changed } };
}

function appended(root: string, file: string, variable: string, item: string): string {
  const text = readFileSync(path.join(root, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const arr = arrayOf(sf, variable);
  if (!arr) throw new ScaffoldRefused(`new-check: ${file} has no array ${variable} to add the stub to`);
  return appendTo(text, arr, item);
}

/** The command: its exit code (0 scaffolded, 2 refused), what it says on out and err. */
export async function main(
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void
): Promise<number> {
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? args[rootAt + 1] : REPO;
  const rest = args.filter((_, i) => rootAt < 0 || (i !== rootAt && i !== rootAt + 1));
  if (rest.length !== 1 || !root || rest[0]!.startsWith('-')) {
    err(`new-check: ${USAGE}`);
    return 2;
  }
  try {
    const done = await newCheck(rest[0]!, path.resolve(root));
    out(`scaffolded ${done.id}: created ${done.files.created.join(', ')}; changed ${done.files.changed.join(', ')}`);
    out(`it fails until written: fill in every TODO as CONTRIBUTING.md says, then rename the fault ${done.fault}`);
    return 0;
  } catch (e) {
    if (!(e instanceof ScaffoldRefused)) throw e;
    err(e.message);
    return 2;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main(
    process.argv.slice(2),
    (l) => console.log(l),
    (l) => console.error(l)
  );
