import type { Check } from '../../src/engine/run/check.ts';
import { tokenShape } from './token-shape.ts';
import { bearerRequired } from './bearer-required.ts';
import { malformedToken } from './malformed-token.ts';
import { tamperedToken } from './tampered-token.ts';
import { tokenRequestInvalid } from './token-request-invalid.ts';
import { tokenExpiry } from './token-expiry.ts';
import { tokenOrganization } from './token-organization.ts';
import { tokenRole } from './token-role.ts';
import { unauthenticatedStatus } from './unauthenticated-status.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import { tokenNotCached } from './token-not-cached.ts';
import { tokenRequestFraming } from './token-request-framing.ts';
import { schemeSpelling } from './scheme-spelling.ts';

export const authChecks: Check[] = [
  tokenShape,
  bearerRequired,
  malformedToken,
  tamperedToken,
  tokenRequestInvalid,
  tokenExpiry,
  tokenOrganization,
  tokenRole,
  unauthenticatedStatus,
  bearerChallenge,
  tokenNotCached,
  tokenRequestFraming,
  schemeSpelling,
];
