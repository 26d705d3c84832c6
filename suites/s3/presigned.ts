import { fetch, type RequestInit } from 'undici';
import type { Check } from '../../src/engine/run/check.ts';
import { pass, fail } from '../../src/engine/run/check.ts';
import { EXTENDED_CLAUSES, Trace, s3Session, loadS3Presigner, runBucket, record, removeBucket } from './_session.ts';

/** Shows a presigned URL without its signature (it is a credential until it expires). */
const shown = (url: string) =>
  url.replace(/(X-Amz-Signature=)[0-9a-f]+/i, '$1…').replace(/(X-Amz-Credential=)[^&]+/i, '$1…');

/** The same presigned URL with the last hex digit of its signature changed. */
const alterSignature = (url: string) =>
  url.replace(
    /(X-Amz-Signature=[0-9a-f]*)([0-9a-f])/i,
    (_m, head: string, last: string) => head + (last === '0' ? '1' : '0')
  );

/** What the capability row says of the URL with an altered signature: refused (403), or what it got instead. */
const refusal = (status: number, method: string) =>
  `the same ${method} URL with one signature digit altered → ${status || 'no answer'} (${status === 403 ? 'refused' : status >= 200 && status < 300 ? 'ACCEPTED: signatures are not checked' : 'expected 403'})`;

/** Presigned PUT and GET URLs work with a plain HTTP client; a URL whose signature was altered is refused. */
export const presigned: Check = {
  id: 's3.presigned',
  group: 's3',
  clauses: EXTENDED_CLAUSES,
  level: 'should',
  why: { should: 'the supported subset of S3 is not shown; presigned URLs are common but optional' },
  title: 'Presigned GET and PUT URLs work; an altered signature is refused',
  async run(ctx) {
    const s = await s3Session(ctx);
    const { PutObjectCommand, GetObjectCommand } = s.sdk;
    const { getSignedUrl } = await loadS3Presigner();
    const trace = new Trace();
    const bucket = await runBucket(ctx, trace, 'presigned');
    const body = `uploaded through a presigned URL in run ${s.runId}`;
    const problems: string[] = [];
    const send = async (label: string, url: string, init: RequestInit) => {
      try {
        // The session's dispatcher: the same trusted CAs, client certificate and proxy as the SDK's requests.
        const res = await fetch(url, {
          ...init,
          redirect: 'manual',
          signal: AbortSignal.timeout(s.timeoutMs),
          dispatcher: s.dispatcher,
        });
        const text = await res.text();
        trace.note(`${label} ${init.method} ${shown(url)} → ${res.status}`);
        return { status: res.status, text };
      } catch (err) {
        trace.note(`${label} ${init.method} ${shown(url)} → no answer (${(err as Error).message})`);
        return { status: 0, text: '' };
      }
    };
    try {
      const putUrl = await getSignedUrl(s.client, new PutObjectCommand({ Bucket: bucket, Key: 'presigned.txt' }), {
        expiresIn: 300,
      });
      const put = await send('presigned PUT', putUrl, { method: 'PUT', body });
      const putOk = put.status >= 200 && put.status < 300;
      if (!putOk) problems.push(`PUT to a presigned URL answered ${put.status || 'nothing'}`);
      // The same URL with one hex digit of the signature changed must be refused, and must not overwrite the object.
      const forgedPut = await send('presigned PUT, signature altered', alterSignature(putUrl), {
        method: 'PUT',
        body: 'written with an altered signature',
      });
      if (forgedPut.status !== 403)
        problems.push(
          `a presigned PUT URL with an altered signature answered ${forgedPut.status || 'nothing'}, expected 403`
        );
      record(
        ctx,
        'Presigned PUT',
        putOk ? true : put.status === 0 ? 'unknown' : false,
        `PUT presigned.txt → ${put.status || 'no answer'}; ${refusal(forgedPut.status, 'PUT')}`
      );

      const getUrl = await getSignedUrl(s.client, new GetObjectCommand({ Bucket: bucket, Key: 'presigned.txt' }), {
        expiresIn: 300,
      });
      const get = await send('presigned GET', getUrl, { method: 'GET' });
      const getOk = get.status === 200 && (!putOk || get.text === body);
      if (get.status !== 200) problems.push(`GET of a presigned URL answered ${get.status || 'nothing'}`);
      else if (putOk && get.text !== body)
        problems.push(
          `GET of a presigned URL gave ${JSON.stringify(get.text.slice(0, 60))}, not what was put${forgedPut.status >= 200 && forgedPut.status < 300 ? ' (the PUT with an altered signature overwrote it)' : ''}`
        );
      const forged = await send('presigned GET, signature altered', alterSignature(getUrl), { method: 'GET' });
      if (forged.status !== 403)
        problems.push(`a presigned URL with an altered signature answered ${forged.status || 'nothing'}, expected 403`);
      const got =
        get.status !== 200
          ? ''
          : !putOk
            ? ' (nothing was put to compare)'
            : get.text === body
              ? ', the body put'
              : ', not the body put';
      record(
        ctx,
        'Presigned GET',
        getOk || (get.status === 200 && !putOk) ? true : get.status === 0 ? 'unknown' : false,
        `GET presigned.txt → ${get.status || 'no answer'}${got}; ${refusal(forged.status, 'GET')}`
      );

      if (problems.length) return fail(problems.join('; '), [], trace.details());
      return pass(
        'a presigned PUT stores the object, a presigned GET returns it; a PUT and a GET with an altered signature get 403',
        [],
        trace.details()
      );
    } finally {
      await removeBucket(s.client, bucket);
    }
  },
};
