// npm run new-check scaffolds into a copy of the files it touches (never this tree): the check, its registration,
// its fault stub and its probe meet the structural rules at once, and carry what the quick tests refuse until written.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../scripts/new-check.ts';
import type { Check } from '../../src/engine/run/check.ts';
import type { FaultDef } from '../../fixtures/reference/faults.ts';
import { misplacedFiles } from '../architecture/suite-files.ts';
import { ROOT } from '../architecture/imports.ts';

const copies: string[] = [];
afterAll(() => copies.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of what the scaffold reads and writes; src/ is linked so the new check's imports resolve. */
function copyOfRepo(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'cc-new-check-'));
  copies.push(root);
  for (const p of [
    'suites',
    'fixtures/reference/faults.ts',
    'fixtures/s3/faults.ts',
    'test/reference/faults',
    '.prettierrc.json',
  ])
    cpSync(path.join(ROOT, p), path.join(root, p), { recursive: true });
  symlinkSync(path.join(ROOT, 'src'), path.join(root, 'src'));
  return root;
}

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (l) => out.push(l),
    (l) => err.push(l)
  );
  return { code, out, err };
}

const read = (root: string, f: string) => readFileSync(path.join(root, f), 'utf8');

describe('npm run new-check <group>/<name>', () => {
  it('writes a typed check that fails, registered in its group, with a fault stub and a probe stub naming it', async () => {
    const root = copyOfRepo();
    const r = await run('webhooks/unknown-event', '--root', root);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(
      'scaffolded webhooks.unknown-event: created suites/webhooks/unknown-event.ts; changed suites/webhooks/index.ts, fixtures/reference/faults.ts, test/reference/faults/webhooks.ts'
    );

    // The check: one per file and registered (the architecture rule), failing when run.
    const group = ['index.ts', 'unknown-event.ts', 'registration.ts'].map((f) => ({
      file: `suites/webhooks/${f}`,
      text: read(root, `suites/webhooks/${f}`),
    }));
    expect(misplacedFiles(group)).toEqual([]);
    const mod = (await import(pathToFileURL(path.join(root, 'suites/webhooks/unknown-event.ts')).href)) as {
      unknownEvent: Check;
    };
    const check = mod.unknownEvent;
    expect({ id: check.id, group: check.group, level: check.level }).toEqual({
      id: 'webhooks.unknown-event',
      group: 'webhooks',
      level: 'must',
    });
    expect((await check.run({} as never)).status).toBe('failed');
    // What test/spec/spec.test.ts refuses until the author writes it: no clause, TODO in the title and reasons.
    expect(check.clauses).toEqual([]);
    expect(check.title).toMatch(/\bTODO\b/);
    expect(read(root, 'suites/webhooks/index.ts')).toMatch(/import \{ unknownEvent \} from '\.\/unknown-event\.ts';/);
    expect(read(root, 'suites/webhooks/index.ts')).toMatch(/noRedelivery,\s+unknownEvent,\s+\]/);

    // The fault stub names the check; what test/spec/clauses.test.ts refuses: no clause, a TODO, no fault model.
    const { FAULTS } = (await import(pathToFileURL(path.join(root, 'fixtures/reference/faults.ts')).href)) as {
      FAULTS: FaultDef[];
    };
    const stub = FAULTS.at(-1)!;
    expect(stub).toMatchObject({ name: 'todo-webhooks-unknown-event', check: 'webhooks.unknown-event', clauses: [] });
    expect(stub.description).toMatch(/\bTODO\b/);
    // Its probe sits in the module of the check's group (test/reference/options.test.ts) and cannot pass as written.
    expect(read(root, 'test/reference/faults/webhooks.ts')).toContain("name: 'todo-webhooks-unknown-event'");

    // Every file it wrote is as Prettier writes it.
    for (const f of [
      'suites/webhooks/unknown-event.ts',
      'suites/webhooks/index.ts',
      'fixtures/reference/faults.ts',
      'test/reference/faults/webhooks.ts',
    ]) {
      const file = path.join(root, f);
      expect(await prettier.check(read(root, f), { ...(await prettier.resolveConfig(file)), filepath: file }), f).toBe(
        true
      );
    }
    // Nothing but the stubs changed in the files it edited.
    expect(read(root, 'fixtures/reference/faults.ts').replace(/ {2}\{\n {4}\/\/ TODO[\s\S]*?\n {2}\},\n/, '')).toBe(
      read(ROOT, 'fixtures/reference/faults.ts')
    );
  });

  it('puts the fault stub of an S3 check in the S3 catalogue, and writes no reference probe for it', async () => {
    const root = copyOfRepo();
    const r = await run('s3/put-tagging', '--root', root);
    expect(r.code).toBe(0);
    expect(read(root, 'fixtures/s3/faults.ts')).toContain("check: 's3.put-tagging'");
    expect(read(root, 'fixtures/reference/faults.ts')).toBe(read(ROOT, 'fixtures/reference/faults.ts'));
    expect(existsSync(path.join(root, 'test/reference/faults/s3.ts'))).toBe(false);
  });

  it.each([
    [['nope/unknown-event'], /^new-check: no group "nope" \(suites\/<group>\/index\.ts\): one of /],
    [['webhooks/Unknown_Event'], /^new-check: "Unknown_Event" is not a check name/],
    [['webhooks/_helper'], /^new-check: "_helper" is not a check name/],
    [['webhooks'], /^new-check: "webhooks" is not <group>\/<name>/],
    [['webhooks/registration'], /^new-check: suites\/webhooks\/registration\.ts exists$/],
    [['webhooks/signature'], /^new-check: suites\/webhooks\/signature\.ts exists$/],
    [['vms/create-fuzz-2', 'extra'], /^new-check: usage: npm run new-check <group>\/<name>/],
    [[], /^new-check: usage: /],
  ])('refuses %j with exit 2 and one line, writing nothing', async (args, message) => {
    const root = copyOfRepo();
    const r = await run(...args, '--root', root);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(message);
    expect(read(root, 'fixtures/reference/faults.ts')).toBe(read(ROOT, 'fixtures/reference/faults.ts'));
  });

  it('refuses a check id already in use under another file name', async () => {
    const root = copyOfRepo();
    // tasks.long-running-operations lives in long-running.ts.
    const r = await run('tasks/long-running-operations', '--root', root);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['new-check: a check with id tasks.long-running-operations exists in suites/tasks/']);
  });
});
