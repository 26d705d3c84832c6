import type { Check } from '../../src/engine/check.ts';
import { logged } from './logged.ts';
import { searchFilters } from './search-filters.ts';
import { exportMatches } from './export.ts';

export const auditChecks: Check[] = [logged, searchFilters, exportMatches];
