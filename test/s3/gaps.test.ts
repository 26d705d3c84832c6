import { describe, it, expect } from 'vitest';
import { s3rverGap } from '../../fixtures/s3/gaps.ts';

const HEADER_GAP = 'A header you provided implies functionality that is not implemented';
const PARAMETER_GAP = 'A parameter you provided implies functionality that is not implemented';

/** Each request s3rver 3.7 would answer wrongly, and what the embedded endpoint answers instead (501 with this message). */
const GAPS: Array<[string, string, string, Record<string, string>, string]> = [
  ['suffix range', 'GET', '/b/k', { range: 'bytes=-5' }, HEADER_GAP],
  ['suffix range on HEAD', 'HEAD', '/b/k', { range: 'bytes=-5' }, HEADER_GAP],
  ['multiple ranges', 'GET', '/b/k', { range: 'bytes=0-1,4-5' }, HEADER_GAP],
  ['If-Match', 'GET', '/b/k', { 'if-match': '"abc"' }, HEADER_GAP],
  ['If-Match on HEAD', 'HEAD', '/b/k', { 'if-match': '"abc"' }, HEADER_GAP],
  ['If-Unmodified-Since', 'GET', '/b/k', { 'if-unmodified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' }, HEADER_GAP],
  ['If-None-Match list', 'GET', '/b/k', { 'if-none-match': '"a", "b"' }, HEADER_GAP],
  ['If-None-Match weak tag', 'GET', '/b/k', { 'if-none-match': 'W/"a"' }, HEADER_GAP],
  [
    'If-None-Match with If-Modified-Since',
    'GET',
    '/b/k',
    { 'if-none-match': '"a"', 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' },
    HEADER_GAP,
  ],
  ['conditional PUT (If-None-Match: *)', 'PUT', '/b/k', { 'if-none-match': '*' }, HEADER_GAP],
  [
    'copy precondition',
    'PUT',
    '/b/k',
    { 'x-amz-copy-source': 'b/src', 'x-amz-copy-source-if-match': '"a"' },
    HEADER_GAP,
  ],
  ['ListParts', 'GET', '/b/k?uploadId=u1', {}, PARAMETER_GAP],
  ['AbortMultipartUpload', 'DELETE', '/b/k?uploadId=u1', {}, PARAMETER_GAP],
];

/** What s3rver answers correctly, passed through untouched. */
const HANDLED: Array<[string, string, string, Record<string, string>]> = [
  ['plain GET', 'GET', '/b/k', {}],
  ['first-last range', 'GET', '/b/k', { range: 'bytes=10-19' }],
  ['open-ended range', 'GET', '/b/k', { range: 'bytes=10-' }],
  ['If-None-Match alone', 'GET', '/b/k', { 'if-none-match': '"a"' }],
  ['If-Modified-Since alone', 'GET', '/b/k', { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' }],
  ['PutObject', 'PUT', '/b/k', { 'content-type': 'text/plain' }],
  ['CopyObject', 'PUT', '/b/k', { 'x-amz-copy-source': 'b/src' }],
  ['UploadPart', 'PUT', '/b/k?uploadId=u1&partNumber=1', {}],
  ['CompleteMultipartUpload', 'POST', '/b/k?uploadId=u1', {}],
  ['DeleteObject', 'DELETE', '/b/k', {}],
  ['ListObjectsV2 (a bucket, not an object)', 'GET', '/b?list-type=2', { range: 'bytes=-5' }],
  ['ListBuckets', 'GET', '/', {}],
];

describe('the embedded S3 endpoint answers 501 NotImplemented where s3rver would answer wrongly', () => {
  it.each(GAPS)('%s → 501', (_name, method, path, headers, message) => {
    const gap = s3rverGap(method, new URL(path, 'http://s3.invalid'), headers);
    expect(gap?.message).toBe(message);
    expect(gap?.why.length).toBeGreaterThan(10);
  });

  it.each(HANDLED)('%s → passed to s3rver', (_name, method, path, headers) => {
    expect(s3rverGap(method, new URL(path, 'http://s3.invalid'), headers)).toBeUndefined();
  });
});
