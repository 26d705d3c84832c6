// The CLI's one door to the embedded targets: the reference (in this process or its own), the S3 endpoint, the TLS
// material they serve with, and their fault and variant catalogues for `serve --list-*`. Nothing else of src/ imports
// fixtures/ (test/architecture/layering.test.ts).
export {
  startReference,
  FAULTS,
  HOSTILE_FAULTS,
  VARIANTS,
  type ReferenceTarget,
} from '../../fixtures/reference/server.ts';
export { startReferenceProcess } from '../../fixtures/reference/process.ts';
export {
  startEmbeddedS3,
  S3_FAULTS,
  S3_VARIANTS,
  type EmbeddedS3,
  type EmbeddedS3Settings,
} from '../../fixtures/s3/server.ts';
export { makeTlsMaterial, type TlsMaterial } from '../../fixtures/reference/tls.ts';
