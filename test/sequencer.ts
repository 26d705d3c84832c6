// The order npm test starts its files in: longest first, as measured (test/durations.json, seconds per file, written
// by `npm run test:durations`), so the two forks end together. On a clean clone vitest knows no durations and starts
// the larger files first; the longest fault runs are small files, so they started last and ran alone at the end
// (16.2 min wall for 26.8 min of tests). Files not measured yet start first, as vitest starts unknown files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const measured = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;

export class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) =>
      measured[path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/')] ?? Infinity;
    return Promise.resolve([...files].sort((a, b) => seconds(b) - seconds(a)));
  }
}
