// npm run vocabulary: writes the vocabulary reference (src/spec/vocabulary.ts) into spec/README.md between its markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withVocabulary } from '../src/spec/vocabulary-doc.ts';

const README = fileURLToPath(new URL('../spec/README.md', import.meta.url));
const before = readFileSync(README, 'utf8');
const after = withVocabulary(before);
if (after !== before) writeFileSync(README, after);
console.log(after === before ? 'spec/README.md is up to date' : 'spec/README.md: vocabulary section rewritten');
