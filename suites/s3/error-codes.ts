import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import {
  CORE_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  bucketName,
  describeFailure,
  removeBucket,
  type Result,
} from './_session.ts';

/** Errors carry S3's codes and statuses: NoSuchBucket 404, NoSuchKey 404, BucketNotEmpty 409. */
export const errorCodes: Check = {
  id: 's3.error-codes',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'standard S3 clients (seed) rely on NoSuchBucket, NoSuchKey and BucketNotEmpty' },
  title: 'Errors carry S3 codes and statuses (NoSuchBucket, NoSuchKey, BucketNotEmpty)',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, ListObjectsV2Command, DeleteBucketCommand, HeadObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'errors');
    const absentBucket = bucketName(s, 'absent');
    const problems: string[] = [];
    const expect = (what: string, r: Result<unknown & object>, status: number, code: string) => {
      if (r.ok) problems.push(`${what} answered ${r.status}, expected ${status} ${code}`);
      else if (r.failure.status !== status || r.failure.code !== code)
        problems.push(`${what} answered ${describeFailure(r.failure)}, expected ${status} ${code}`);
    };
    try {
      expect(
        'ListObjectsV2 of a bucket that does not exist',
        await trace.call(`ListObjectsV2 ${absentBucket}`, () =>
          s.client.send(new ListObjectsV2Command({ Bucket: absentBucket }))
        ),
        404,
        'NoSuchBucket'
      );
      expect(
        'GetObject in a bucket that does not exist',
        await trace.call(`GetObject ${absentBucket}/k`, () =>
          s.client.send(new GetObjectCommand({ Bucket: absentBucket, Key: 'k' }))
        ),
        404,
        'NoSuchBucket'
      );
      expect(
        'GetObject of a key that does not exist',
        await trace.call(`GetObject ${bucket}/absent.txt`, () =>
          s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'absent.txt' }))
        ),
        404,
        'NoSuchKey'
      );
      // A HEAD answer has no body, so only the status can be checked.
      const head = await trace.call(`HeadObject ${bucket}/absent.txt`, () =>
        s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'absent.txt' }))
      );
      if (head.ok || head.failure.status !== 404)
        problems.push(
          `HeadObject of a key that does not exist answered ${head.ok ? head.status : describeFailure(head.failure)}, expected 404`
        );
      const put = await trace.call('PutObject keep.txt', () =>
        s.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'keep.txt', Body: 'x' }))
      );
      if (!put.ok) problems.push(`PutObject failed: ${describeFailure(put.failure)}`);
      else
        expect(
          'DeleteBucket of a bucket that holds an object',
          await trace.call(`DeleteBucket ${bucket} (not empty)`, () =>
            s.client.send(new DeleteBucketCommand({ Bucket: bucket }))
          ),
          409,
          'BucketNotEmpty'
        );
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        'NoSuchBucket 404, NoSuchKey 404 (HEAD: 404) and BucketNotEmpty 409 as S3 answers them',
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
