import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import {
  CORE_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  describeFailure,
  removeBucket,
  md5Hex,
  unquote,
} from './_session.ts';

/** The ETag of a single-part upload is the hex MD5 of its bytes, in PUT, HEAD and GET answers. */
export const etagMd5: Check = {
  id: 's3.etag-md5',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'standard S3 clients (seed) verify uploads by the ETag of a single-part upload' },
  title: 'The ETag of a single-part upload is the MD5 of the object',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, HeadObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'etag');
    const body = new Uint8Array(10_000).map((_, i) => (i * 31 + 7) & 0xff);
    const expected = await md5Hex(body);
    const seen: Record<string, string | undefined> = {};
    try {
      const put = await trace.call('PutObject etag.bin', () =>
        s.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'etag.bin', Body: body }))
      );
      if (!put.ok) return fail(`PutObject failed: ${describeFailure(put.failure)}`, [], trace.details());
      seen['PutObject'] = put.value.ETag;
      const head = await trace.call('HeadObject etag.bin', () =>
        s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'etag.bin' }))
      );
      if (head.ok) seen['HeadObject'] = head.value.ETag;
      const get = await trace.call('GetObject etag.bin', () =>
        s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'etag.bin' }))
      );
      if (get.ok) {
        seen['GetObject'] = get.value.ETag;
        await get.value.Body!.transformToByteArray();
      }
      const wrong = Object.entries(seen).filter(([, etag]) => unquote(etag).toLowerCase() !== expected);
      const details = trace.details({ expectedMd5: expected, etags: seen });
      if (!head.ok)
        return fail(`HeadObject of the uploaded object failed: ${describeFailure(head.failure)}`, [], details);
      if (!get.ok) return fail(`GetObject of the uploaded object failed: ${describeFailure(get.failure)}`, [], details);
      if (wrong.length)
        return fail(
          `ETag is not the MD5 of the single-part upload (${expected}): ${wrong.map(([op, e]) => `${op} ${e}`).join(', ')}`,
          [],
          details
        );
      return pass(`PutObject, HeadObject and GetObject answer ETag "${expected}", the MD5 of the bytes`, [], details);
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
