// The fault catalogue's faults of some check groups (test/suite/fault-catalogue.ts).
import { describeCatalogue } from './fault-catalogue.ts';

describeCatalogue('faults-resources.test.ts');
