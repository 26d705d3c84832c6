import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  EXTENDED_CLAUSES,
  Trace,
  s3Session,
  runBucket,
  record,
  describeFailure,
  evidence,
  answerOf,
  notImplemented,
  removeBucket,
  unquote,
} from './_session.ts';

const MiB = 1024 * 1024;

function part(n: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) b.writeUInt32BE((i * 2654435761 + n) >>> 0, i);
  return b;
}

/** Multipart upload: create, upload parts, list parts, complete (object = parts in order), and abort (upload gone). */
export const multipart: Check = {
  id: 's3.multipart',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset of S3 is not shown; multipart is common but optional' },
  title: 'Multipart upload: create, upload part, list parts, complete, abort',
  async run(ctx) {
    const s = await s3Session(ctx);
    const {
      CreateMultipartUploadCommand,
      UploadPartCommand,
      ListPartsCommand,
      CompleteMultipartUploadCommand,
      AbortMultipartUploadCommand,
      GetObjectCommand,
    } = s.sdk;
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'multipart');
    const parts = [part(1, 5 * MiB), part(2, 1024 + 7)];
    const key = 'multi.bin';
    const problems: string[] = [];
    const ops = ['CreateMultipartUpload', 'UploadPart', 'ListParts', 'CompleteMultipartUpload', 'AbortMultipartUpload'];
    const found = new Map<string, { supported: boolean | 'unknown'; evidence: string }>();
    const note = (op: string, supported: boolean, evidence: string) => {
      if (!found.has(op) || !supported) found.set(op, { supported, evidence });
    };
    try {
      const created = await trace.call(`CreateMultipartUpload ${key}`, () =>
        s.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
      );
      if (!created.ok) {
        const ni = notImplemented(created.failure);
        for (const op of ops)
          record(
            ctx,
            op,
            ni ? false : 'unknown',
            `${op === 'CreateMultipartUpload' ? '' : 'not tried: '}${evidence(`CreateMultipartUpload ${key}`, created)}`
          );
        if (ni) return skip(`not supported: CreateMultipartUpload answered ${describeFailure(created.failure)}`);
        return fail(`CreateMultipartUpload answered ${describeFailure(created.failure)}`, [], trace.details());
      }
      note('CreateMultipartUpload', true, evidence(`CreateMultipartUpload ${key}`, created, 'an UploadId'));
      const uploadId = created.value.UploadId!;
      const etags: string[] = [];
      for (const [i, body] of parts.entries()) {
        const up = await trace.call(`UploadPart ${i + 1} (${body.length} bytes)`, () =>
          s.client.send(
            new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: i + 1, Body: body })
          )
        );
        if (!up.ok) {
          note('UploadPart', false, evidence(`UploadPart ${i + 1} (${body.length} bytes)`, up));
          problems.push(`UploadPart ${i + 1} answered ${describeFailure(up.failure)}`);
          continue;
        }
        const md5 = createHash('md5').update(body).digest('hex');
        etags.push(up.value.ETag!);
        if (unquote(up.value.ETag) !== md5) {
          problems.push(`UploadPart ${i + 1} ETag ${up.value.ETag}, expected the part's MD5 "${md5}"`);
          note(
            'UploadPart',
            false,
            evidence(`UploadPart ${i + 1} (${body.length} bytes)`, up, `ETag ${up.value.ETag} is not the part's MD5`)
          );
        } else
          note(
            'UploadPart',
            true,
            evidence(`UploadPart ${i + 1} (${body.length} bytes)`, up, "the part's MD5 as ETag")
          );
      }
      const listed = await trace.call('ListParts', () =>
        s.client.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
      );
      if (!listed.ok) {
        note('ListParts', false, evidence('ListParts', listed));
        if (!notImplemented(listed.failure)) problems.push(`ListParts answered ${describeFailure(listed.failure)}`);
      } else {
        const got = (listed.value.Parts ?? []).map((p) => `${p.PartNumber}:${p.Size}:${unquote(p.ETag)}`);
        const want = parts.map((b, i) => `${i + 1}:${b.length}:${unquote(etags[i])}`);
        const ok = JSON.stringify(got) === JSON.stringify(want);
        if (!ok) problems.push(`ListParts gave ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
        note(
          'ListParts',
          ok,
          evidence('ListParts', listed, ok ? 'both parts with number, size and ETag' : `lists ${JSON.stringify(got)}`)
        );
      }
      const done = await trace.call('CompleteMultipartUpload', () =>
        s.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
          })
        )
      );
      if (!done.ok) {
        note('CompleteMultipartUpload', false, evidence('CompleteMultipartUpload', done));
        problems.push(`CompleteMultipartUpload answered ${describeFailure(done.failure)}`);
      } else {
        const get = await trace.call(`GetObject ${key}`, () =>
          s.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        );
        let ok = false;
        if (!get.ok) problems.push(`GetObject of the completed upload answered ${describeFailure(get.failure)}`);
        else {
          // Streamed and hashed: the object is not held again beside its parts (a run's peak memory is here).
          const sha = createHash('sha256');
          let length = 0;
          for await (const chunk of get.value.Body as Readable) {
            length += (chunk as Buffer).length;
            sha.update(chunk as Buffer);
          }
          const whole = {
            length: parts.reduce((n, p) => n + p.length, 0),
            sha256: parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex'),
          };
          ok = length === whole.length && sha.digest('hex') === whole.sha256;
          if (!ok)
            problems.push(
              `the completed object (${length} bytes) is not the parts in order (${whole.length} bytes${length === whole.length ? ', SHA-256 differs' : ''})`
            );
        }
        const expectedEtag =
          createHash('md5')
            .update(Buffer.concat(parts.map((p) => createHash('md5').update(p).digest())))
            .digest('hex') + `-${parts.length}`;
        if (unquote(done.value.ETag) !== expectedEtag)
          trace.note(
            `CompleteMultipartUpload ETag ${done.value.ETag}; S3 answers "${expectedEtag}" (MD5 of the part MD5s, then -2): informational`
          );
        note(
          'CompleteMultipartUpload',
          ok,
          evidence(
            'CompleteMultipartUpload',
            done,
            ok ? 'the object is the parts in order' : 'the object is not the parts in order'
          )
        );
      }
      // Abort: a second upload with one part, aborted; its parts can no longer be listed.
      const second = await trace.call(`CreateMultipartUpload ${key}.aborted`, () =>
        s.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: `${key}.aborted` }))
      );
      if (second.ok) {
        const id = second.value.UploadId!;
        await trace.call('UploadPart 1 (aborted upload)', () =>
          s.client.send(
            new UploadPartCommand({
              Bucket: bucket,
              Key: `${key}.aborted`,
              UploadId: id,
              PartNumber: 1,
              Body: parts[1],
            })
          )
        );
        const abort = await trace.call('AbortMultipartUpload', () =>
          s.client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: `${key}.aborted`, UploadId: id }))
        );
        if (!abort.ok) {
          note('AbortMultipartUpload', false, evidence('AbortMultipartUpload', abort));
          if (!notImplemented(abort.failure))
            problems.push(`AbortMultipartUpload answered ${describeFailure(abort.failure)}`);
        } else {
          // Gone: ListParts answers 404 NoSuchUpload (or, where ListParts is not supported, completing it fails with 404).
          const after =
            found.get('ListParts')?.supported === false
              ? await trace.call('CompleteMultipartUpload (aborted upload)', () =>
                  s.client.send(
                    new CompleteMultipartUploadCommand({
                      Bucket: bucket,
                      Key: `${key}.aborted`,
                      UploadId: id,
                      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }] },
                    })
                  )
                )
              : await trace.call('ListParts (aborted upload)', () =>
                  s.client.send(new ListPartsCommand({ Bucket: bucket, Key: `${key}.aborted`, UploadId: id }))
                );
          const gone = !after.ok && after.failure.status === 404;
          if (!gone)
            problems.push(
              `the aborted upload still answers (${after.ok ? after.status : describeFailure(after.failure)}), expected 404 NoSuchUpload`
            );
          note(
            'AbortMultipartUpload',
            gone,
            evidence(
              'AbortMultipartUpload',
              abort,
              `then the upload answers ${answerOf(after)}${gone ? ' (gone)' : ', expected 404 NoSuchUpload'}`
            )
          );
        }
      }
      for (const op of ops) {
        const f = found.get(op);
        record(ctx, op, f ? f.supported : 'unknown', f ? f.evidence : 'not reached');
      }
      const unsupported = ops.filter(
        (op) => found.get(op)?.supported === false && !problems.some((p) => p.startsWith(op))
      );
      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        `create, upload part (${parts.map((p) => p.length).join(' + ')} bytes), list parts, complete and abort behave${unsupported.length ? `; not supported: ${unsupported.join(', ')}` : ''}`,
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
