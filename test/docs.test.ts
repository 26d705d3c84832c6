// The README is the front page: it must stay short enough to read on two screens, and everything else lives in
// docs/. Moving text between files breaks links silently, so every relative link (and heading anchor) is resolved
// here, and docs/README.md must index every file in docs/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = path.join(ROOT, 'docs');
const docFiles = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort();
const checked = ['README.md', ...docFiles.map((f) => `docs/${f}`)];

const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

/** The text outside fenced code blocks: links and headings inside examples are not links or headings. */
function prose(md: string): string {
  return md.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers, repeated headings numbered as GitHub numbers them. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(md).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a Markdown file: [text](target), without external URLs. */
function relativeLinks(md: string): string[] {
  return [...prose(md).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('README.md', () => {
  const readme = read('README.md');
  const lines = readme.replace(/\n$/, '').split('\n');

  it('fits on two screens: at most 90 lines of at most 120 characters', () => {
    expect(lines.length).toBeLessThanOrEqual(90);
    expect(lines.filter((l) => l.length > 120)).toEqual([]);
  });

  it('keeps the two commands of a fresh machine and the four exit codes', () => {
    expect(readme).toContain('npm ci && npx cloud-conformance run --profile quick --report json:out.json\n');
    expect(readme).toMatch(/^npm test$/m);
    for (const code of ['**0** conformant', '**1** nonconformant', '**2** could not run', '**3** incomplete'])
      expect(readme).toContain(code);
  });

  it('links the documentation index', () => {
    expect(relativeLinks(readme)).toContain('docs/README.md');
  });
});

describe('docs/', () => {
  it('docs/README.md links every file in docs/', () => {
    const index = relativeLinks(read('docs/README.md')).map((t) => t.split('#')[0]);
    expect(docFiles.filter((f) => f !== 'README.md' && !index.includes(f))).toEqual([]);
  });

  for (const file of checked) {
    it(`every relative link in ${file} resolves, anchors included`, () => {
      const broken: string[] = [];
      const links = relativeLinks(read(file));
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) {
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const resolved =
          target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), target);
        if (!existsSync(resolved)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor !== undefined && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${link}: no such heading`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('computes anchors as GitHub does', () => {
    expect(slug('What the run proved: coverage, `incomplete`, certify')).toBe(
      'what-the-run-proved-coverage-incomplete-certify'
    );
    expect(slug('Self-validation: `npm run mutants`')).toBe('self-validation-npm-run-mutants');
    expect(slug('Object storage (S3)')).toBe('object-storage-s3');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});
