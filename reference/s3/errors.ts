/** An S3 error answer: HTTP status, S3 error code and a message; rendered as an XML Error document. */
export class S3Error extends Error {
  /** Extra response headers (Content-Range on 416, for example). */
  headers: Record<string, string> = {};
  /** The answer carries no error document, only its status (set under a fault). */
  bodiless = false;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra elements of the Error document (for example BucketName, Key, UploadId). */
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const noSuchBucket = (bucket: string) =>
  new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist.', { BucketName: bucket });
export const noSuchKey = (key: string) =>
  new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
export const noSuchUpload = (uploadId: string) =>
  new S3Error(404, 'NoSuchUpload', 'The specified multipart upload does not exist.', { UploadId: uploadId });
export const notImplemented = (what: string) =>
  new S3Error(501, 'NotImplemented', `${what} is not implemented.`);
export const malformedXml = (
  why = 'The XML you provided was not well-formed or did not validate against our published schema.',
) => new S3Error(400, 'MalformedXML', why);
export const invalidArgument = (message: string) => new S3Error(400, 'InvalidArgument', message);
export const accessDenied = (message = 'Access Denied') => new S3Error(403, 'AccessDenied', message);
export const preconditionFailed = () =>
  new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold.');
