import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import {
  CORE_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  makeClient,
  describeFailure,
  removeBucket,
  type Result,
} from './_session.ts';

/** A wrong access key is refused with 403 InvalidAccessKeyId, a wrong secret with 403 SignatureDoesNotMatch. */
export const authErrors: Check = {
  id: 's3.auth-errors',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'the seed says standard S3 clients work unchanged, and they rely on these S3 error codes' },
  title: 'Wrong credentials are refused: 403 InvalidAccessKeyId, 403 SignatureDoesNotMatch',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { ListBucketsCommand, PutObjectCommand, ListObjectsV2Command } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'auth');
    const wrongKey = makeClient(
      s.config,
      s.timeoutMs,
      { accessKeyId: `CCUNKNOWN${s.runId.toUpperCase()}`, secretAccessKey: s.config.secretKey },
      s.sdk,
      s.transport
    );
    // The right key with a secret that differs from the real one in every position (never printed).
    const wrongSecret = makeClient(
      s.config,
      s.timeoutMs,
      { accessKeyId: s.config.accessKey, secretAccessKey: `wrong-${s.runId}-secret` },
      s.sdk,
      s.transport
    );
    const problems: string[] = [];
    const expect = (what: string, r: Result<object>, code: string) => {
      if (r.ok) problems.push(`${what} was served (${r.status}), expected 403 ${code}`);
      else if (r.failure.status !== 403 || r.failure.code !== code)
        problems.push(`${what} answered ${describeFailure(r.failure)}, expected 403 ${code}`);
    };
    try {
      expect(
        'ListBuckets with an unknown access key',
        await trace.call('ListBuckets (unknown access key)', () => wrongKey.send(new ListBucketsCommand({}))),
        'InvalidAccessKeyId'
      );
      expect(
        'ListBuckets signed with a wrong secret',
        await trace.call('ListBuckets (wrong secret)', () => wrongSecret.send(new ListBucketsCommand({}))),
        'SignatureDoesNotMatch'
      );
      expect(
        'PutObject signed with a wrong secret',
        await trace.call(`PutObject ${bucket}/forged.txt (wrong secret)`, () =>
          wrongSecret.send(new PutObjectCommand({ Bucket: bucket, Key: 'forged.txt', Body: 'forged' }))
        ),
        'SignatureDoesNotMatch'
      );
      const listed = await trace.call(`ListObjectsV2 ${bucket}`, () =>
        s.client.send(new ListObjectsV2Command({ Bucket: bucket }))
      );
      if (listed.ok && (listed.value.Contents ?? []).some((o) => o.Key === 'forged.txt'))
        problems.push('the object put with a wrong secret was stored');
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        'an unknown access key gets 403 InvalidAccessKeyId; a wrong secret gets 403 SignatureDoesNotMatch and stores nothing',
        [],
        trace.details()
      );
    } finally {
      wrongKey.destroy();
      wrongSecret.destroy();
      await removeBucket(s.client, bucket);
    }
  },
};
