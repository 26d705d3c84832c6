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

const KEYS = ['a/1.txt', 'a/2.txt', 'a/3.txt', 'b/1.txt', 'b/c/1.txt', 'top.txt'];

/** ListObjectsV2 honours prefix, delimiter (common prefixes) and max-keys, and a continuation walk lists every key once. */
export const listV2: Check = {
  id: 's3.list-v2',
  group: 's3',
  clauses: CORE_CLAUSES,
  level: 'must',
  why: { must: 'standard S3 clients (seed) list with ListObjectsV2, prefix, delimiter and continuation' },
  title: 'ListObjectsV2 with prefix, delimiter, max-keys and continuation token',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, ListObjectsV2Command } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'list');
    const problems: string[] = [];
    const list = (
      label: string,
      input: { Prefix?: string; Delimiter?: string; MaxKeys?: number; ContinuationToken?: string }
    ) =>
      trace.call(`ListObjectsV2 ${label}`, () => s.client.send(new ListObjectsV2Command({ Bucket: bucket, ...input })));
    try {
      for (const key of KEYS) {
        const put = await trace.call(`PutObject ${key}`, () =>
          s.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }))
        );
        if (!put.ok) return fail(`PutObject ${key} failed: ${describeFailure(put.failure)}`, [], trace.details());
      }
      const all = await list('(all)', {});
      record(ctx, 'ListObjectsV2', all.ok, evidence(`ListObjectsV2 ${bucket} (all keys)`, all));
      if (!all.ok) return fail(`ListObjectsV2 failed: ${describeFailure(all.failure)}`, [], trace.details());
      const allKeys = (all.value.Contents ?? []).map((o) => o.Key);
      if (JSON.stringify(allKeys) !== JSON.stringify(KEYS))
        problems.push(
          `listing all keys gave ${JSON.stringify(allKeys)}, expected ${JSON.stringify(KEYS)} (in UTF-8 order)`
        );

      const prefixed = await list('prefix=a/', { Prefix: 'a/' });
      const pk = prefixed.ok ? (prefixed.value.Contents ?? []).map((o) => o.Key) : [];
      if (!prefixed.ok) problems.push(`prefix listing answered ${describeFailure(prefixed.failure)}`);
      else if (JSON.stringify(pk) !== JSON.stringify(['a/1.txt', 'a/2.txt', 'a/3.txt']))
        problems.push(`prefix a/ listed ${JSON.stringify(pk)}`);

      const delimited = await list('delimiter=/', { Delimiter: '/' });
      if (!delimited.ok) problems.push(`delimiter listing answered ${describeFailure(delimited.failure)}`);
      else {
        const cps = (delimited.value.CommonPrefixes ?? []).map((p) => p.Prefix);
        const keys = (delimited.value.Contents ?? []).map((o) => o.Key);
        if (JSON.stringify(cps) !== JSON.stringify(['a/', 'b/']))
          problems.push(`delimiter / gave common prefixes ${JSON.stringify(cps)}, expected ["a/","b/"]`);
        if (JSON.stringify(keys) !== JSON.stringify(['top.txt']))
          problems.push(`delimiter / gave keys ${JSON.stringify(keys)}, expected ["top.txt"]`);
      }
      const nested = await list('prefix=b/ delimiter=/', { Prefix: 'b/', Delimiter: '/' });
      if (nested.ok) {
        const cps = (nested.value.CommonPrefixes ?? []).map((p) => p.Prefix);
        const keys = (nested.value.Contents ?? []).map((o) => o.Key);
        if (JSON.stringify(cps) !== '["b/c/"]' || JSON.stringify(keys) !== '["b/1.txt"]')
          problems.push(
            `prefix b/ with delimiter / gave prefixes ${JSON.stringify(cps)} and keys ${JSON.stringify(keys)}`
          );
      } else problems.push(`prefix+delimiter listing answered ${describeFailure(nested.failure)}`);

      // Continuation: pages of 2 must walk all six keys, each once, in order.
      const walked: string[] = [];
      let token: string | undefined;
      let pages = 0;
      for (; pages < 10; pages++) {
        const page = await list(`max-keys=2 page ${pages + 1}`, { MaxKeys: 2, ContinuationToken: token });
        if (!page.ok) {
          problems.push(`page ${pages + 1} of max-keys=2 answered ${describeFailure(page.failure)}`);
          break;
        }
        const keys = (page.value.Contents ?? []).map((o) => o.Key!);
        walked.push(...keys);
        if (keys.length > 2) problems.push(`max-keys=2 answered ${keys.length} keys`);
        if (page.value.KeyCount !== undefined && page.value.KeyCount !== keys.length)
          problems.push(`KeyCount ${page.value.KeyCount} but ${keys.length} keys`);
        if (!page.value.IsTruncated) break;
        token = page.value.NextContinuationToken;
        if (!token) {
          problems.push(`page ${pages + 1} says IsTruncated=true but carries no NextContinuationToken`);
          break;
        }
      }
      if (pages === 0 && walked.length === KEYS.length)
        problems.push('max-keys=2 was not honoured: the first page holds every key');
      if (JSON.stringify(walked) !== JSON.stringify(KEYS))
        problems.push(`the continuation walk listed ${JSON.stringify(walked)}, expected ${JSON.stringify(KEYS)}`);
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        `prefix, delimiter and max-keys honoured; a walk of ${pages + 1} pages of 2 lists all ${KEYS.length} keys once, in order`,
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
