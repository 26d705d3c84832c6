import type { Check } from '../../src/engine/run/check.ts';
import { perPageMax } from './per-page-max.ts';
import { totalCount } from './total.ts';
import { pageWalk } from './walk.ts';
import { declaredLists } from './declared-lists.ts';
import { filteredPages } from './filtered-pages.ts';

export const paginationChecks: Check[] = [perPageMax, totalCount, pageWalk, filteredPages, declaredLists];
