import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import {
  CORE_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  record,
  describeFailure,
  evidence,
  removeBucket,
} from './_session.ts';

const META = { purpose: 'conformance', 'run-note': 'round trip' };
const TYPE = 'application/x-cc-test; charset=utf-8';

function sameMeta(got: Record<string, string> | undefined): boolean {
  const g = Object.fromEntries(Object.entries(got ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return Object.entries(META).every(([k, v]) => g[k] === v);
}

/** Put, get, head and delete an object; body, content type and user metadata come back as stored. */
export const objectRoundtrip: Check = {
  id: 's3.object-roundtrip',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'the seed says standard S3 clients work unchanged: object put, get, head and delete' },
  title: 'Objects round-trip: put, get, head, delete, with content type and user metadata',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand, HeadObjectCommand, DeleteObjectCommand } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'objects');
    const key = 'dir/object with spaces+ünïcode.txt';
    const body = `conformance run ${s.runId}\n`.repeat(50);
    const problems: string[] = [];
    try {
      const put = await trace.call(`PutObject ${key}`, () =>
        s.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: TYPE, Metadata: META }))
      );
      record(ctx, 'PutObject', put.ok, evidence(`PutObject ${key} (content type and user metadata)`, put));
      if (!put.ok) return fail(`PutObject failed: ${describeFailure(put.failure)}`, [], trace.details());

      const get = await trace.call(`GetObject ${key}`, () =>
        s.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
      );
      record(ctx, 'GetObject', get.ok, evidence(`GetObject ${key}`, get));
      if (!get.ok) problems.push(`GetObject answered ${describeFailure(get.failure)}`);
      else {
        const text = await get.value.Body!.transformToString();
        if (text !== body) problems.push(`GetObject body differs (${text.length} characters, stored ${body.length})`);
        if (get.value.ContentType !== TYPE)
          problems.push(
            `GetObject Content-Type ${JSON.stringify(get.value.ContentType)}, stored ${JSON.stringify(TYPE)}`
          );
        if (!sameMeta(get.value.Metadata))
          problems.push(
            `GetObject user metadata ${JSON.stringify(get.value.Metadata)}, stored ${JSON.stringify(META)}`
          );
      }

      const head = await trace.call(`HeadObject ${key}`, () =>
        s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))
      );
      record(ctx, 'HeadObject', head.ok, evidence(`HeadObject ${key}`, head));
      if (!head.ok) problems.push(`HeadObject answered ${describeFailure(head.failure)}`);
      else {
        if (head.value.ContentLength !== Buffer.byteLength(body))
          problems.push(`HeadObject Content-Length ${head.value.ContentLength}, stored ${Buffer.byteLength(body)}`);
        if (head.value.ContentType !== TYPE)
          problems.push(`HeadObject Content-Type ${JSON.stringify(head.value.ContentType)}`);
        if (!sameMeta(head.value.Metadata))
          problems.push(
            `HeadObject user metadata ${JSON.stringify(head.value.Metadata)}, stored ${JSON.stringify(META)}`
          );
      }

      const del = await trace.call(`DeleteObject ${key}`, () =>
        s.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
      );
      record(ctx, 'DeleteObject', del.ok, evidence(`DeleteObject ${key}`, del));
      if (!del.ok) problems.push(`DeleteObject answered ${describeFailure(del.failure)}`);
      else {
        const gone = await trace.call(`HeadObject ${key} (deleted)`, () =>
          s.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))
        );
        if (gone.ok) problems.push('HeadObject of the deleted object still answers 2xx');
        else if (gone.failure.status !== 404)
          problems.push(`HeadObject of the deleted object answered ${describeFailure(gone.failure)}, expected 404`);
      }
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        'body, Content-Type and user metadata round-trip through put, get and head; the deleted object answers 404',
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
