import type { Check } from '../../src/engine/run/check.ts';
import { S3, S3_LARGE_OBJECT, sharing } from '../shares.ts';
import { bucketLifecycle } from './bucket-lifecycle.ts';
import { objectRoundtrip } from './object-roundtrip.ts';
import { etagMd5 } from './etag-md5.ts';
import { listV2 } from './list-v2.ts';
import { errorCodes } from './error-codes.ts';
import { authErrors } from './auth-errors.ts';
import { rangeGet } from './range-get.ts';
import { conditionalGet } from './conditional-get.ts';
import { copyObject } from './copy-object.ts';
import { multipart } from './multipart.ts';
import { presigned } from './presigned.ts';
import { largeObject } from './large-object.ts';

// The run's S3 cleanup, for the CLI: the session helpers stay private to the group.
export { sweepS3, sweepAllS3 } from './_session.ts';

/** Core checks (must: standard clients work unchanged), then the extended operations (should, in the capability matrix). */
largeObject.shares = [S3_LARGE_OBJECT];
export const s3Checks: Check[] = sharing(
  [S3],
  [
    bucketLifecycle,
    objectRoundtrip,
    etagMd5,
    listV2,
    errorCodes,
    authErrors,
    rangeGet,
    conditionalGet,
    copyObject,
    multipart,
    presigned,
    largeObject,
  ]
);
