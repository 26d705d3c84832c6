import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import {
  EXTENDED_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  record,
  describeFailure,
  evidence,
  notImplemented,
  removeBucket,
  unquote,
} from './_session.ts';

const OP = 'CopyObject';

/** CopyObject: the copy has the source's bytes, content type and user metadata, and the source's ETag. */
export const copyObject: Check = {
  id: 's3.copy-object',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset of S3 is not shown; CopyObject is common but optional' },
  title: 'CopyObject copies bytes, content type and user metadata',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, CopyObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'copy');
    const body = `copy source of run ${s.runId}`;
    try {
      const put = await trace.call('PutObject source.txt', () =>
        s.client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: 'source.txt',
            Body: body,
            ContentType: 'text/x-cc',
            Metadata: { origin: 'source' },
          })
        )
      );
      if (!put.ok) {
        record(ctx, OP, 'unknown', `not tried: ${evidence('PutObject source.txt', put)}`);
        return fail(`PutObject failed: ${describeFailure(put.failure)}`, [], trace.details());
      }
      const copy = await trace.call('CopyObject source.txt → copy.txt', () =>
        s.client.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy.txt', CopySource: `${bucket}/source.txt` }))
      );
      if (!copy.ok && notImplemented(copy.failure)) {
        record(ctx, OP, false, evidence('CopyObject source.txt to copy.txt', copy));
        return skip(`not supported: CopyObject answered ${describeFailure(copy.failure)}`);
      }
      const problems: string[] = [];
      if (!copy.ok) problems.push(`CopyObject answered ${describeFailure(copy.failure)}`);
      else {
        if (unquote(copy.value.CopyObjectResult?.ETag) !== unquote(put.value.ETag))
          problems.push(`CopyObjectResult ETag ${copy.value.CopyObjectResult?.ETag}, source ETag ${put.value.ETag}`);
        const got = await trace.call('GetObject copy.txt', () =>
          s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'copy.txt' }))
        );
        if (!got.ok) problems.push(`GetObject of the copy answered ${describeFailure(got.failure)}`);
        else {
          const text = await got.value.Body!.transformToString();
          if (text !== body)
            problems.push(
              `the copy holds ${JSON.stringify(text.slice(0, 60))} (${text.length} characters), the source ${JSON.stringify(body)}`
            );
          if (got.value.ContentType !== 'text/x-cc')
            problems.push(`the copy's Content-Type is ${JSON.stringify(got.value.ContentType)}`);
          if (got.value.Metadata?.['origin'] !== 'source')
            problems.push(`the copy's user metadata is ${JSON.stringify(got.value.Metadata)}`);
        }
      }
      record(
        ctx,
        OP,
        problems.length === 0,
        evidence(
          'CopyObject source.txt to copy.txt',
          copy,
          problems.length ? problems.join('; ') : 'the copy has the source bytes, content type, metadata and ETag'
        )
      );
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass('the copy has the source bytes, content type, user metadata and ETag', [], trace.details());
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
