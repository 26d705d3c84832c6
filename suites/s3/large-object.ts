import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail, skip } from '../../src/engine/run/check.ts';
import { waitsLong } from '../../src/engine/config/config.ts';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
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

const MiB = 1024 * 1024;
export const DEFAULT_LARGE_OBJECT_BYTES = 64 * MiB;
/**
 * The quick profile's object: still streamed both ways and larger than any buffer on the way, at a quarter of the
 * processor time (on the embedded endpoint the bytes cross this process four times, beside every other check).
 */
export const QUICK_LARGE_OBJECT_BYTES = 16 * MiB;
const OP = 'Large object (streamed PUT and GET)';

/** A deterministic stream of `size` bytes in 1 MiB chunks, hashed (MD5, SHA-256) as it is produced. */
function generated(size: number, seed: string) {
  const base = Buffer.alloc(MiB);
  let block = createHash('sha256').update(seed).digest();
  for (let i = 0; i < MiB; i += 32) {
    block.copy(base, i);
    block = createHash('sha256').update(block).digest();
  }
  const md5 = createHash('md5');
  const sha = createHash('sha256');
  async function* chunks() {
    for (let offset = 0, n = 0; offset < size; offset += MiB, n++) {
      const chunk = Buffer.from(base.subarray(0, Math.min(MiB, size - offset)));
      chunk.writeUInt32BE(n, 0);
      md5.update(chunk);
      sha.update(chunk);
      yield chunk;
    }
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    digests: () => ({ md5: md5.digest('hex'), sha256: sha.digest('hex') }),
  };
}

/** A large object (64 MiB; 16 MiB in the quick profile) goes up and comes back as streams; the bytes survive the trip. */
export const largeObject: Check = {
  id: 's3.large-object',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset and object size limits are not shown' },
  title: 'A large object (64 MiB, quick: 16 MiB) streams up and down intact',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand } = s.sdk;
    const size =
      s.config.largeObjectBytes ?? (waitsLong(ctx.config) ? DEFAULT_LARGE_OBJECT_BYTES : QUICK_LARGE_OBJECT_BYTES);
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'large');
    const sizeText = size % MiB === 0 ? `${size / MiB} MiB` : `${size} bytes`;
    let peakRss = process.memoryUsage().rss;
    const startRss = peakRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    try {
      const gen = generated(size, `cc-${s.runId}`);
      const started = Date.now();
      const put = await trace.call(`PutObject large.bin (${sizeText}, streamed)`, () =>
        s.client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: 'large.bin',
            Body: gen.stream,
            ContentLength: size,
            ContentType: 'application/octet-stream',
          })
        )
      );
      if (!put.ok) {
        const ni = notImplemented(put.failure);
        record(ctx, OP, ni ? false : 'unknown', evidence(`PutObject large.bin (${sizeText}, streamed)`, put));
        if (ni) return skip(`not supported: a ${sizeText} PutObject answered ${describeFailure(put.failure)}`);
        return fail(`PutObject of ${sizeText} answered ${describeFailure(put.failure)}`, [], trace.details());
      }
      const sent = gen.digests();
      const putMs = Date.now() - started;
      const get = await trace.call('GetObject large.bin (streamed)', () =>
        s.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'large.bin' }))
      );
      if (!get.ok) {
        record(
          ctx,
          OP,
          false,
          `PutObject large.bin (${sizeText}, streamed) → ${put.status}; ${evidence('GetObject large.bin (streamed)', get)}`
        );
        return fail(
          `GetObject of the ${sizeText} object answered ${describeFailure(get.failure)}`,
          [],
          trace.details()
        );
      }
      const md5 = createHash('md5');
      const sha = createHash('sha256');
      let received = 0;
      for await (const chunk of get.value.Body as Readable) {
        received += (chunk as Buffer).length;
        md5.update(chunk as Buffer);
        sha.update(chunk as Buffer);
      }
      const got = { md5: md5.digest('hex'), sha256: sha.digest('hex') };
      const details = trace.details({
        size,
        sent,
        received: { bytes: received, ...got },
        putMs,
        getMs: Date.now() - started - putMs,
        rssGrowthMiB: Math.round((peakRss - startRss) / MiB),
      });
      const problems: string[] = [];
      if (received !== size) problems.push(`GetObject streamed ${received} bytes, ${size} were put`);
      else if (got.sha256 !== sent.sha256)
        problems.push('the bytes streamed back differ from the bytes put (SHA-256 mismatch)');
      if (unquote(put.value.ETag) !== sent.md5)
        trace.note(`PutObject ETag ${put.value.ETag}, MD5 ${sent.md5} (checked by s3.etag-md5 for small objects)`);
      record(
        ctx,
        OP,
        problems.length === 0,
        `PutObject large.bin (${sizeText}, streamed) → ${put.status}; ${evidence('GetObject large.bin (streamed)', get, problems.length ? problems.join('; ') : `${received} bytes, SHA-256 equal to what was put`)}`
      );
      if (problems.length) return fail(problems.join('; '), [], details);
      return pass(`${sizeText} streamed up (${putMs} ms) and back, SHA-256 equal`, [], details);
    } finally {
      clearInterval(sampler);
      await removeBucket(s.client, bucket);
    }
  },
};
