import type { Check } from '../../src/engine/run/check.ts';
import { WHOLE_API, sharing } from '../shares.ts';
import { logged } from './logged.ts';
import { searchFilters } from './search-filters.ts';
import { exportMatches } from './export.ts';

export const auditChecks: Check[] = sharing(WHOLE_API, [logged, searchFilters, exportMatches]);
