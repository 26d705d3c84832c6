import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import {
  CORE_CLAUSES,
  Trace,
  s3Session,
  bucketName,
  record,
  describeFailure,
  evidence,
  removeBucket,
} from './_session.ts';

/** Create, head, list and delete a bucket with a standard client; a deleted bucket is gone. */
export const bucketLifecycle: Check = {
  id: 's3.bucket-lifecycle',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'the seed says standard S3 clients work unchanged: bucket create, head, list and delete' },
  title: 'A standard S3 client creates, heads, lists and deletes a bucket',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { CreateBucketCommand, HeadBucketCommand, ListBucketsCommand, DeleteBucketCommand } = s.sdk;
    const trace = new Trace();
    const bucket = bucketName(s, 'bucket');
    s.buckets.add(bucket);
    const problems: string[] = [];
    try {
      const created = await trace.call(`CreateBucket ${bucket}`, () =>
        s.client.send(new CreateBucketCommand({ Bucket: bucket }))
      );
      record(ctx, 'CreateBucket', created.ok, evidence(`CreateBucket ${bucket}`, created));
      if (!created.ok) return fail(`CreateBucket failed: ${describeFailure(created.failure)}`, [], trace.details());

      const head = await trace.call(`HeadBucket ${bucket}`, () =>
        s.client.send(new HeadBucketCommand({ Bucket: bucket }))
      );
      record(ctx, 'HeadBucket', head.ok, evidence(`HeadBucket ${bucket}`, head));
      if (!head.ok) problems.push(`HeadBucket of the new bucket answered ${describeFailure(head.failure)}`);

      const list = await trace.call('ListBuckets', () => s.client.send(new ListBucketsCommand({})));
      const listed = list.ok && (list.value.Buckets ?? []).some((b) => b.Name === bucket);
      record(
        ctx,
        'ListBuckets',
        list.ok && listed,
        evidence('ListBuckets', list, list.ok ? (listed ? `lists ${bucket}` : `without ${bucket}`) : undefined)
      );
      if (!list.ok) problems.push(`ListBuckets answered ${describeFailure(list.failure)}`);
      else if (!listed)
        problems.push(
          `ListBuckets (${list.value.Buckets?.length ?? 0} buckets) does not list the new bucket ${bucket}`
        );

      const del = await trace.call(`DeleteBucket ${bucket}`, () =>
        s.client.send(new DeleteBucketCommand({ Bucket: bucket }))
      );
      record(ctx, 'DeleteBucket', del.ok, evidence(`DeleteBucket ${bucket}`, del));
      if (!del.ok) problems.push(`DeleteBucket of the empty bucket answered ${describeFailure(del.failure)}`);
      else {
        const gone = await trace.call(`HeadBucket ${bucket} (deleted)`, () =>
          s.client.send(new HeadBucketCommand({ Bucket: bucket }))
        );
        if (gone.ok) problems.push('HeadBucket of the deleted bucket still answers 2xx');
        else if (gone.failure.status !== 404)
          problems.push(`HeadBucket of the deleted bucket answered ${describeFailure(gone.failure)}, expected 404`);
      }
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        'CreateBucket, HeadBucket, ListBuckets and DeleteBucket behave; the deleted bucket answers 404',
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
