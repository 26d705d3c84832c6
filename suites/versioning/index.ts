import type { Check } from '../../src/engine/run/check.ts';
import { unknownVersion } from './unknown-version.ts';
import { handedOutPaths } from './handed-out-paths.ts';

export const versioningChecks: Check[] = [unknownVersion, handedOutPaths];
