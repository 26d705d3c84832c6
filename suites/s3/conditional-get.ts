import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import type { GetObjectCommandInput } from '@aws-sdk/client-s3';
import { EXTENDED_CLAUSES, Trace, s3Session, runBucket, record, describeFailure, notImplemented, removeBucket } from './session.ts';

/** Conditional GET: If-None-Match, If-Match and If-Modified-Since each answer as RFC 9110 and S3 document. */
export const conditionalGet: Check = {
  id: 's3.conditional-get',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: "the supported subset of S3 is not shown; conditional GET is common but optional" },
  title: 'Conditional GET honours If-None-Match, If-Match and If-Modified-Since',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, HeadObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'conditional');
    try {
      const put = await trace.call('PutObject cond.txt', () => s.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond.txt', Body: 'conditional' })));
      const head = await trace.call('HeadObject cond.txt', () => s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'cond.txt' })));
      if (!put.ok || !head.ok || !head.value.ETag || !head.value.LastModified) {
        for (const op of ['If-None-Match', 'If-Match', 'If-Modified-Since']) record(ctx, `GetObject (${op})`, 'unknown', 'the object could not be stored or its ETag/Last-Modified read');
        return fail('could not store the object or read its ETag and Last-Modified', [], trace.details());
      }
      const etag = head.value.ETag;
      const lastModified = head.value.LastModified;
      const get = (label: string, input: Partial<GetObjectCommandInput>) =>
        trace.call(`GetObject cond.txt ${label}`, async () => {
          const r = await s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond.txt', ...input }));
          await r.Body?.transformToByteArray();
          return r;
        });
      const status = (r: Awaited<ReturnType<typeof get>>) => (r.ok ? r.status : r.failure.status);
      const cases: Array<{ op: string; label: string; input: Partial<GetObjectCommandInput>; expect: number }> = [
        { op: 'If-None-Match', label: `If-None-Match: ${etag}`, input: { IfNoneMatch: etag }, expect: 304 },
        { op: 'If-None-Match', label: 'If-None-Match: "0000"', input: { IfNoneMatch: '"00000000000000000000000000000000"' }, expect: 200 },
        { op: 'If-Match', label: `If-Match: ${etag}`, input: { IfMatch: etag }, expect: 200 },
        { op: 'If-Match', label: 'If-Match: "0000"', input: { IfMatch: '"00000000000000000000000000000000"' }, expect: 412 },
        { op: 'If-Modified-Since', label: 'If-Modified-Since: Last-Modified + 1 h', input: { IfModifiedSince: new Date(lastModified.getTime() + 3600_000) }, expect: 304 },
        { op: 'If-Modified-Since', label: 'If-Modified-Since: Last-Modified - 1 day', input: { IfModifiedSince: new Date(lastModified.getTime() - 86_400_000) }, expect: 200 },
      ];
      const byOp = new Map<string, string[]>();
      const unsupported = new Map<string, string>();
      for (const c of cases) {
        const r = await get(c.label, c.input);
        const problems = byOp.get(c.op) ?? [];
        byOp.set(c.op, problems);
        if (!r.ok && notImplemented(r.failure)) unsupported.set(c.op, describeFailure(r.failure));
        else if (status(r) !== c.expect) problems.push(`${c.label} answered ${r.ok ? r.status : describeFailure(r.failure)}, expected ${c.expect}`);
      }
      for (const [op, problems] of byOp) {
        if (unsupported.has(op)) record(ctx, `GetObject (${op})`, false, `answered ${unsupported.get(op)}`);
        else record(ctx, `GetObject (${op})`, problems.length === 0, problems.length ? problems.join('; ') : 'answers 304/412/200 as expected');
      }
      const problems = [...byOp.values()].flat();
      if (unsupported.size === byOp.size) return skip('not supported: conditional GETs answered NotImplemented');
      if (problems.length) return fail(problems.join('; '), [], trace.details({ etag, lastModified: lastModified.toISOString() }));
      const expected: Record<string, string> = { 'If-None-Match': '304/200', 'If-Match': '200/412', 'If-Modified-Since': '304/200' };
      const honoured = [...byOp.keys()].filter((op) => !unsupported.has(op)).map((op) => `${op} (${expected[op]})`);
      const lacking = [...unsupported].map(([op, answered]) => `${op} (answered ${answered})`);
      return pass(`honoured: ${honoured.join(', ')}${lacking.length ? `; not supported: ${lacking.join(', ')}` : ''}`, [], trace.details());
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
