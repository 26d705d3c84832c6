// npm run test:durations: runs npm test once and writes how long each file took (test/durations.json, whole seconds,
// longest first), the order test/sequencer.ts starts them in. Files that failed keep the seconds they had.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface VitestJson {
  testResults: Array<{ name: string; startTime: number; endTime: number; status: string }>;
}

const FILE = path.join(import.meta.dirname, '..', 'test', 'durations.json');
// Files under this many seconds cannot end a fork late; leaving them out keeps the table short.
const LISTED_FROM_SECONDS = 5;

const dir = mkdtempSync(path.join(tmpdir(), 'cc-durations-'));
try {
  const out = path.join(dir, 'vitest.json');
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)],
    { stdio: 'inherit' }
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
  const before = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, number>;
  const root = path.join(import.meta.dirname, '..');
  const now = new Map(Object.entries(before));
  for (const f of report.testResults) {
    const name = path.relative(root, f.name).split(path.sep).join('/');
    if (f.status === 'passed') now.set(name, Math.round((f.endTime - f.startTime) / 1000));
  }
  const table = Object.fromEntries([...now].filter(([, s]) => s >= LISTED_FROM_SECONDS).sort((a, b) => b[1] - a[1]));
  writeFileSync(FILE, JSON.stringify(table, null, 2) + '\n');
  console.log(`test/durations.json: ${Object.keys(table).length} files of ${LISTED_FROM_SECONDS} s or more`);
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
