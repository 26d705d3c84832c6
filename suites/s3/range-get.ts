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
} from './_session.ts';

const OP = 'GetObject (Range bytes=first-last)';
const SUFFIX_OP = 'GetObject (Range suffix bytes=-n)';

/** Range GET: bytes=10-19 answers 206 with those ten bytes and Content-Range; a suffix range bytes=-5 the last five. */
export const rangeGet: Check = {
  id: 's3.range-get',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset of S3 is not shown; range GET is common but optional' },
  title: 'Range GET answers 206 Partial Content with the requested bytes',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'range');
    const body = 'abcdefghijklmnopqrstuvwxyz0123456789';
    try {
      const put = await trace.call('PutObject range.txt', () =>
        s.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'range.txt', Body: body }))
      );
      if (!put.ok) {
        record(ctx, OP, 'unknown', `not tried: ${evidence('PutObject range.txt', put)}`);
        return fail(`PutObject failed: ${describeFailure(put.failure)}`, [], trace.details());
      }
      const problems: string[] = [];
      const suffixProblems: string[] = [];
      const r = await trace.call('GetObject range.txt Range: bytes=10-19', () =>
        s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'range.txt', Range: 'bytes=10-19' }))
      );
      if (!r.ok && notImplemented(r.failure)) {
        record(ctx, OP, false, evidence('GetObject range.txt Range: bytes=10-19', r));
        record(ctx, SUFFIX_OP, 'unknown', `not tried: ${evidence('GetObject range.txt Range: bytes=10-19', r)}`);
        return skip(`not supported: a range GET answered ${describeFailure(r.failure)}`);
      }
      if (!r.ok) problems.push(`bytes=10-19 answered ${describeFailure(r.failure)}`);
      else {
        const got = await r.value.Body!.transformToString();
        if (r.status !== 206) problems.push(`bytes=10-19 answered ${r.status}, expected 206`);
        if (got !== body.slice(10, 20))
          problems.push(
            `bytes=10-19 gave ${JSON.stringify(got.slice(0, 40))}, expected ${JSON.stringify(body.slice(10, 20))}`
          );
        if (r.value.ContentRange !== `bytes 10-19/${body.length}`)
          problems.push(`Content-Range ${JSON.stringify(r.value.ContentRange)}, expected "bytes 10-19/${body.length}"`);
      }
      const suffix = await trace.call('GetObject range.txt Range: bytes=-5', () =>
        s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'range.txt', Range: 'bytes=-5' }))
      );
      // An endpoint that lacks suffix ranges and says so (501) is honest: not supported, never a warning.
      const suffixUnsupported = !suffix.ok && notImplemented(suffix.failure);
      if (!suffix.ok && !suffixUnsupported) suffixProblems.push(`bytes=-5 answered ${describeFailure(suffix.failure)}`);
      else if (suffix.ok) {
        const got = await suffix.value.Body!.transformToString();
        if (suffix.status !== 206 || got !== body.slice(-5))
          suffixProblems.push(
            `bytes=-5 answered ${suffix.status} ${JSON.stringify(got.slice(0, 40))}, expected 206 ${JSON.stringify(body.slice(-5))}`
          );
      }
      record(
        ctx,
        OP,
        problems.length === 0,
        evidence(
          'GetObject range.txt Range: bytes=10-19',
          r,
          problems.length ? problems.join('; ') : `bytes 10-19 and Content-Range "bytes 10-19/${body.length}"`
        )
      );
      record(
        ctx,
        SUFFIX_OP,
        suffixUnsupported ? false : suffixProblems.length === 0,
        evidence(
          'GetObject range.txt Range: bytes=-5',
          suffix,
          suffixUnsupported ? undefined : suffixProblems.length ? suffixProblems.join('; ') : 'the last 5 bytes'
        )
      );
      problems.push(...suffixProblems);
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      if (!suffix.ok)
        return pass(
          `bytes=10-19 answers 206 with exactly those bytes and a matching Content-Range; not supported: suffix ranges (bytes=-5 answered ${describeFailure(suffix.failure)})`,
          [],
          trace.details()
        );
      return pass(
        'bytes=10-19 and bytes=-5 answer 206 with exactly those bytes and a matching Content-Range',
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
