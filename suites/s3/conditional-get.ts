import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import type { GetObjectCommandInput } from '@aws-sdk/client-s3';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EXTENDED_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  record,
  answerOf,
  evidence,
  notImplemented,
  removeBucket,
} from './_session.ts';

/** One conditional GET: the header sent, why that value, and the status S3 answers to it. */
interface Case {
  op: 'If-None-Match' | 'If-Match' | 'If-Modified-Since';
  value: string;
  /** what the value is, for the evidence */
  is: string;
  input: Partial<GetObjectCommandInput>;
  expect: number;
}

/**
 * Conditional GET: If-None-Match, If-Match and If-Modified-Since each answer as RFC 9110 and S3 document.
 * If-Modified-Since is judged only with dates S3 honours: the object's Last-Modified itself (not modified since: 304)
 * and a day before it (200). A date in the future is not sent: HTTP (RFC 2616 §14.25) calls it invalid and Amazon S3
 * ignores it (200), where s3rver answers 304.
 */
export const conditionalGet: Check = {
  id: 's3.conditional-get',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset of S3 is not shown; conditional GET is common but optional' },
  title: 'Conditional GET honours If-None-Match, If-Match and If-Modified-Since (Last-Modified itself, a past date)',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, HeadObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'conditional');
    try {
      const put = await trace.call('PutObject cond.txt', () =>
        s.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond.txt', Body: 'conditional' }))
      );
      const storedAt = Date.now();
      const head = await trace.call('HeadObject cond.txt', () =>
        s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'cond.txt' }))
      );
      if (!put.ok || !head.ok || !head.value.ETag || !head.value.LastModified) {
        const why = `not tried: ${!put.ok ? evidence('PutObject cond.txt', put) : evidence('HeadObject cond.txt', head, 'no ETag or Last-Modified to make the conditions of')}`;
        for (const op of OPS) record(ctx, `GetObject (${op})`, 'unknown', why);
        return fail('could not store the object or read its ETag and Last-Modified', [], trace.details());
      }
      const etag = head.value.ETag;
      // HTTP dates are whole seconds: Last-Modified as HEAD answered it is the object's date as S3 compares it.
      const lastModified = head.value.LastModified;
      const dayBefore = new Date(lastModified.getTime() - 86_400_000);
      const other = '"00000000000000000000000000000000"';
      const cases: Case[] = [
        { op: 'If-None-Match', value: etag, is: 'its ETag', input: { IfNoneMatch: etag }, expect: 304 },
        { op: 'If-None-Match', value: other, is: 'another ETag', input: { IfNoneMatch: other }, expect: 200 },
        { op: 'If-Match', value: etag, is: 'its ETag', input: { IfMatch: etag }, expect: 200 },
        { op: 'If-Match', value: other, is: 'another ETag', input: { IfMatch: other }, expect: 412 },
        {
          op: 'If-Modified-Since',
          value: lastModified.toUTCString(),
          is: 'its Last-Modified',
          input: { IfModifiedSince: lastModified },
          expect: 304,
        },
        {
          op: 'If-Modified-Since',
          value: dayBefore.toUTCString(),
          is: 'a day before its Last-Modified',
          input: { IfModifiedSince: dayBefore },
          expect: 200,
        },
      ];
      const byOp = new Map<string, { lines: string[]; problems: string[]; unsupported?: string }>();
      for (const c of cases) {
        // As ceph's s3-tests do: a second after the write, Last-Modified is in the past on every node of the endpoint
        // (one whose clock lags the writer's could otherwise take it for a future date, which S3 ignores).
        if (c.op === 'If-Modified-Since') await sleep(Math.max(0, storedAt + 1000 - Date.now()));
        const label = `${c.op}: ${c.value} (${c.is})`;
        const r = await trace.call(`GetObject cond.txt ${label}`, async () => {
          const got = await s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond.txt', ...c.input }));
          await got.Body?.transformToByteArray();
          return got;
        });
        const found = byOp.get(c.op) ?? { lines: [], problems: [] };
        byOp.set(c.op, found);
        const status = r.ok ? r.status : r.failure.status;
        if (!r.ok && notImplemented(r.failure)) found.unsupported ??= answerOf(r);
        else if (status !== c.expect) found.problems.push(`${label} answered ${answerOf(r)}, expected ${c.expect}`);
        found.lines.push(
          `GetObject cond.txt ${label} → ${answerOf(r)}${!r.ok && notImplemented(r.failure) ? '' : status === c.expect ? ' (as expected)' : `, expected ${c.expect}`}`
        );
      }
      // Each row its own evidence: every request of that condition and what it got.
      for (const [op, found] of byOp)
        record(
          ctx,
          `GetObject (${op})`,
          found.unsupported ? false : found.problems.length === 0,
          found.lines.join('; ')
        );
      const problems = [...byOp.values()].flatMap((f) => f.problems);
      const unsupported = [...byOp].filter(([, f]) => f.unsupported);
      if (unsupported.length === byOp.size) return skip('not supported: conditional GETs answered NotImplemented');
      if (problems.length)
        return fail(problems.join('; '), [], trace.details({ etag, lastModified: lastModified.toUTCString() }));
      const expected: Record<string, string> = {
        'If-None-Match': '304/200',
        'If-Match': '200/412',
        'If-Modified-Since': '304 at Last-Modified, 200 a day before',
      };
      const honoured = [...byOp].filter(([, f]) => !f.unsupported).map(([op]) => `${op} (${expected[op]})`);
      const lacking = unsupported.map(([op, f]) => `${op} (answered ${f.unsupported})`);
      return pass(
        `honoured: ${honoured.join(', ')}${lacking.length ? `; not supported: ${lacking.join(', ')}` : ''}`,
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};

const OPS = ['If-None-Match', 'If-Match', 'If-Modified-Since'] as const;
