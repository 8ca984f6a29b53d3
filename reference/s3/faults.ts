import type { FaultDef } from '../fault-def.ts';

/** [name, description, clauses it breaks]: each fault bends one behaviour at the place it lives. */
const CATALOG: [string, string, string[]][] = [
  // Addressing and region
  [
    's3-virtual-hosted-off',
    'Virtual-hosted requests (<bucket>.localhost) are read as path-style',
    ['s3.addressing.virtual-hosted'],
  ],
  [
    's3-region-alias-rejected',
    'Signatures for region "" or us-east-1 are refused; only auto is accepted',
    ['s3.region.aliases'],
  ],
  [
    's3-region-auto-create-refused',
    'CreateBucket signed for region auto without a LocationConstraint is refused with IllegalLocationConstraintException, as Amazon S3 and moto refuse a region they do not serve',
    ['s3.region.auto', 's3.lock.create-disabled-accepted'],
  ],
  [
    's3-region-us-east-1',
    'GetBucketLocation and HeadBucket report us-east-1 instead of auto',
    ['s3.region.get-bucket-location', 's3.region.head-bucket-header'],
  ],
  [
    's3-location-empty',
    'GetBucketLocation answers an empty LocationConstraint, as Amazon S3 answers for us-east-1',
    ['s3.region.get-bucket-location'],
  ],
  [
    's3-location-no-xmlns',
    'GetBucketLocation answers <LocationConstraint>auto</LocationConstraint> without the S3 namespace, which the AWS SDK for JavaScript reads as no LocationConstraint',
    ['s3.region.get-bucket-location-sdk'],
  ],
  [
    's3-location-constraint-any',
    'CreateBucket accepts any LocationConstraint',
    ['s3.region.create-location-constraint'],
  ],
  [
    's3-location-constraint-auto-refused',
    'CreateBucket refuses LocationConstraint auto with 400 InvalidLocationConstraint, as Amazon S3 refuses a region it does not know',
    ['s3.region.create-location-constraint'],
  ],
  [
    's3-create-bucket-no-location',
    'CreateBucket answers without a Location header',
    ['s3.region.create-location-header'],
  ],
  // Object lock, stand-ins, encryption
  [
    's3-bucket-name-upper-accepted',
    'CreateBucket accepts names with upper-case letters',
    ['s3.bucket.name-rules'],
  ],
  [
    's3-bucket-name-underscore-accepted',
    'CreateBucket accepts names with underscores (the legacy us-east-1 rule)',
    ['s3.bucket.name-rules'],
  ],
  [
    's3-bucket-name-checked-after-create',
    'CreateBucket creates a bucket whose name is outside the rules, then refuses it with 400 InvalidBucketName',
    ['s3.bucket.name-rules'],
  ],
  [
    's3-delete-missing-404',
    'DeleteObject of a key that does not exist answers 404 NoSuchKey',
    ['s3.object.delete-missing'],
  ],
  [
    's3-continue-before-auth',
    'A request with Expect: 100-continue is answered 100 Continue before its credentials are looked at',
    ['s3.put.expect-continue'],
  ],
  [
    's3-object-lock-accepted',
    'CreateBucket with object lock true is accepted',
    ['s3.lock.create-enabled-not-implemented', 's3.error.not-implemented'],
  ],
  [
    's3-object-lock-true-created-then-refused',
    'CreateBucket with object lock true creates the bucket, then answers 501 NotImplemented',
    ['s3.lock.create-enabled-not-implemented'],
  ],
  [
    's3-object-lock-false-rejected',
    'CreateBucket with object lock false is rejected',
    ['s3.lock.create-disabled-accepted'],
  ],
  [
    's3-standin-not-implemented',
    'The read-only stand-in operations answer 501',
    [
      's3.standin.get-bucket-acl',
      's3.standin.get-bucket-versioning',
      's3.standin.get-bucket-lifecycle',
      's3.standin.get-bucket-replication',
      's3.standin.get-bucket-tagging',
      's3.standin.get-object-lock',
    ],
  ],
  [
    's3-encryption-not-implemented',
    'Bucket encryption operations answer 501',
    ['s3.encryption.get', 's3.encryption.put-aes256', 's3.encryption.delete'],
  ],
  [
    's3-encryption-any-algorithm',
    'PutBucketEncryption accepts algorithms other than AES256',
    ['s3.encryption.put-other-rejected'],
  ],
  [
    's3-encryption-other-500',
    'PutBucketEncryption with aws:kms fails with 500 InternalError instead of refusing it',
    ['s3.encryption.put-other-rejected'],
  ],
  [
    's3-encryption-other-stored-then-refused',
    'PutBucketEncryption with aws:kms answers 400 but has already stored it: GetBucketEncryption then reports aws:kms',
    ['s3.encryption.put-other-rejected'],
  ],
  // Unsupported operations and parameters
  [
    's3-unsupported-500',
    'Unsupported operations answer 500 InternalError instead of 501 NotImplemented',
    ['s3.unsupported.not-implemented', 's3.error.not-implemented'],
  ],
  [
    's3-unsupported-converted',
    'An unsupported subresource is carried out as the plain operation of its method',
    ['s3.unsupported.not-implemented', 's3.unsupported.not-converted', 's3.error.not-implemented'],
  ],
  [
    's3-list-unknown-params-other-code',
    'ListObjects and ListObjectsV2 refuse an unknown search parameter with 501 and the code UnsupportedQueryParameter instead of NotImplemented',
    ['s3.error.not-implemented'],
  ],
  [
    's3-list-unknown-params-ignored',
    'Unknown ListObjects parameters are ignored instead of answered 501',
    ['s3.unsupported.list-params', 's3.error.not-implemented'],
  ],
  [
    's3-x-id-honored',
    'x-id=DeleteObject turns an object request into DeleteObject',
    ['s3.params.x-id-ignored'],
  ],
  ['s3-x-purpose-rejected', 'A request carrying x-purpose is rejected', ['s3.params.x-purpose-ignored']],
  // PutObject
  ['s3-put-post-rejected', 'PutObject by POST is not implemented', ['s3.put.post']],
  [
    's3-checksum-headers-rejected',
    'PutObject with x-amz-checksum-sha256 or -sha1 is not implemented',
    // A mismatched checksum is refused 501, not 400: another status than its clause names.
    [
      's3.put.checksum-sha256',
      's3.put.checksum-sha1',
      's3.checksum.put-algorithms',
      's3.put.checksum-mismatch',
    ],
  ],
  [
    's3-checksum-sha1-not-implemented',
    'PutObject refuses x-amz-checksum-sha1 as NotImplemented, taking SHA-256 alone of the checksums SPEC names',
    // A mismatched SHA-1 is refused 501, not 400: another status than its clause names.
    ['s3.put.checksum-sha1', 's3.checksum.put-algorithms', 's3.put.checksum-mismatch'],
  ],
  [
    's3-checksum-sha256-hex',
    'PutObject reads x-amz-checksum-sha256 as hex, as x-amz-content-sha256 is written, and refuses the base64 digest as InvalidDigest',
    ['s3.put.checksum-sha256', 's3.checksum.put-algorithms'],
  ],
  [
    's3-put-sha1-mismatch-stored',
    'PutObject whose x-amz-checksum-sha1 does not match the body stores the object, then answers 400 BadDigest',
    ['s3.put.checksum-mismatch'],
  ],
  [
    's3-put-checksum-unverified',
    'Checksums sent with a body are stored without being verified',
    ['s3.put.checksum-mismatch', 's3.checksum.crc32-mismatch'],
  ],
  [
    's3-content-type-not-inferred',
    'PutObject without Content-Type stores application/octet-stream',
    ['s3.put.content-type-inferred'],
  ],
  [
    's3-put-conditions-ignored',
    'If-Match / If-None-Match are ignored on PutObject, CreateMultipartUpload and CompleteMultipartUpload',
    [
      's3.put.conditional-412',
      's3.put.create-multipart-conditional-412',
      's3.cond.etag-list',
      's3.cond.weak-etag',
      's3.cond.wildcard',
      's3.mpu.conditional-complete-aborts',
      's3.error.precondition-failed',
    ],
  ],
  [
    's3-put-post-204',
    "Control: PutObject by POST stores the object and answers 204 No Content, as Amazon S3's POST upload does by default",
    [],
  ],
  [
    's3-put-if-match-ignored',
    'PutObject honours If-None-Match but ignores If-Match and writes, as Amazon S3 did before it took If-Match on writes',
    [
      's3.put.conditional-412',
      's3.cond.etag-list',
      's3.cond.weak-etag',
      's3.cond.wildcard',
      's3.error.precondition-failed',
    ],
  ],
  [
    's3-create-bucket-if-missing-ignored',
    'cf-create-bucket-if-missing is ignored',
    ['s3.put.create-bucket-if-missing'],
  ],
  // Conditionals
  [
    's3-cond-none-match-first',
    'With If-Match and If-None-Match both on a GET, If-None-Match is evaluated first (304 where If-Match fails)',
    ['s3.cond.precedence'],
  ],
  [
    's3-cond-match-dropped-with-none-match',
    'If-Match is ignored on a GET that also carries If-None-Match',
    ['s3.cond.precedence'],
  ],
  [
    's3-cond-etag-list-first-only',
    'Only the first ETag of an If-Match / If-None-Match list is compared',
    ['s3.cond.etag-list', 's3.cond.weak-etag'],
  ],
  ['s3-cond-weak-etag-unmatched', 'Weak ETags (W/"...") never match', ['s3.cond.weak-etag']],
  [
    's3-cond-if-match-strong',
    'If-Match compares strongly, as RFC 9110 does: a weak W/ ETag never matches',
    ['s3.cond.weak-etag'],
  ],
  [
    's3-cond-weak-on-writes-unmatched',
    'PutObject and the other conditional writes compare If-None-Match without taking W/ off, so a weak tag of the object never matches a write',
    ['s3.cond.weak-etag'],
  ],
  [
    's3-cond-create-multipart-ignored',
    'CreateMultipartUpload ignores a failing If-Match / If-None-Match and creates the upload (PutObject honours them)',
    ['s3.put.create-multipart-conditional-412', 's3.error.precondition-failed'],
  ],
  [
    's3-cond-create-multipart-if-match-ignored',
    'CreateMultipartUpload honours If-None-Match but ignores If-Match and creates the upload, as Amazon S3 did before it took If-Match on writes (PutObject honours both)',
    ['s3.put.create-multipart-conditional-412', 's3.error.precondition-failed'],
  ],
  [
    's3-cond-wildcard-ignored',
    'The wildcard * never matches',
    [
      's3.put.conditional-412',
      's3.put.create-multipart-conditional-412',
      's3.cond.wildcard',
      's3.copy.destination-conditional',
      's3.mpu.conditional-complete-aborts',
      's3.error.precondition-failed',
    ],
  ],
  [
    's3-cond-head-if-match-unchecked',
    'HEAD with one strong ETag in If-Match and no other condition answers 200 whatever that ETag is (lists, weak tags and * are compared; GET compares it)',
    ['s3.cond.get-not-modified'],
  ],
  [
    's3-cond-get-304-ignored',
    'GET and HEAD answer 200 where If-None-Match matches',
    [
      's3.cond.etag-list',
      's3.cond.weak-etag',
      's3.cond.wildcard',
      's3.cond.get-not-modified',
      's3.cond.precedence',
      's3.cond.get-dates',
    ],
  ],
  [
    's3-cond-none-match-412',
    'GET and HEAD answer 412 where If-None-Match matches, refusing it as a failed precondition instead of answering 304 Not Modified',
    ['s3.cond.get-not-modified', 's3.cond.precedence'],
  ],
  [
    's3-precondition-failed-no-body',
    'A failing condition on GET or PUT is answered 412 without an error document, so without the code PreconditionFailed',
    ['s3.error.precondition-failed'],
  ],
  [
    's3-precondition-status-400',
    'A failing precondition answers 400 InvalidRequest instead of 412',
    [
      's3.put.conditional-412',
      's3.put.create-multipart-conditional-412',
      's3.cond.etag-list',
      's3.cond.weak-etag',
      's3.cond.wildcard',
      's3.cond.get-not-modified',
      's3.cond.copy-source',
      's3.copy.destination-conditional',
      's3.error.precondition-failed',
      's3.cond.precedence',
      's3.cond.get-dates',
    ],
  ],
  // CopyObject
  [
    's3-copy-source-conditions-ignored',
    'x-amz-copy-source-if-* headers are ignored',
    ['s3.cond.copy-source'],
  ],
  [
    's3-copy-destination-conditions-ignored',
    'cf-copy-destination-if-* headers are ignored',
    ['s3.copy.destination-conditional'],
  ],
  [
    's3-copy-source-slash-rejected',
    'A copy source with a leading slash is rejected; only sourcebucket/sourcekey is taken',
    [
      's3.cond.copy-source',
      's3.copy.destination-conditional',
      's3.copy.source-leading-slash',
      's3.copy.version-headers',
      's3.copy.multipart-object',
      's3.copy.upload-part-copy',
      's3.copy.metadata-directive',
      's3.copy.etag',
      's3.copy.onto-itself',
      's3.copy.upload-part-copy-range',
      's3.sse.copy',
      // A missing source named with its slash is refused InvalidArgument, not NoSuchKey.
      's3.copy.missing-source',
    ],
  ],
  [
    's3-copy-missing-destination-nosuchkey',
    'CopyObject into a missing bucket answers NoSuchKey',
    ['s3.copy.missing-destination-bucket'],
  ],
  [
    's3-copy-missing-400',
    'Control: CopyObject into a missing bucket or from a missing source answers status 400 with the NoSuchBucket or NoSuchKey document. SPEC names only the codes of these refusals, not their status, so no clause may fail',
    [],
  ],
  [
    's3-copy-missing-source-no-body',
    'CopyObject from a missing source key answers 404 with no error document',
    ['s3.copy.missing-source'],
  ],
  [
    's3-copy-no-version-headers',
    'CopyObject answers without x-amz-version-id and x-amz-copy-source-version-id',
    ['s3.copy.version-headers'],
  ],
  [
    's3-multipart-copy-unsupported',
    'Copying a multipart object is not implemented',
    ['s3.copy.multipart-object'],
  ],
  [
    's3-upload-part-copy-not-implemented',
    'UploadPartCopy is not implemented',
    ['s3.copy.upload-part-copy', 's3.copy.upload-part-copy-range', 's3.sse.copy'],
  ],
  // GetObject and ranges
  [
    's3-range-off-by-one',
    'A range bytes=a-b returns bytes a..b-1 (end treated as exclusive)',
    ['s3.get.range-inclusive', 's3.get.range-forms'],
  ],
  ['s3-range-status-200', 'A ranged GET answers 200 instead of 206', ['s3.get.range-206']],
  [
    's3-range-zero-end-open',
    'bytes=0-0 read as bytes=0-: an end of 0 taken as none',
    ['s3.get.range-inclusive'],
  ],
  [
    's3-range-206-whole-object',
    'A ranged GET answers 206 with the whole object, and a Content-Range naming all of it',
    ['s3.get.range-inclusive', 's3.get.range-forms'],
  ],
  [
    's3-range-no-content-range',
    'A ranged GET answers 206 with exactly the bytes asked for but no Content-Range',
    ['s3.get.content-range-partial-only'],
  ],
  [
    's3-content-range-on-full',
    'A full (unranged) GET carries Content-Range',
    ['s3.get.content-range-partial-only'],
  ],
  [
    's3-content-range-on-ignored-range',
    'A Range header the server ignores still gets a Content-Range on the whole-object 200',
    ['s3.get.content-range-partial-only'],
  ],
  ['s3-range-suffix-from-start', 'A suffix range bytes=-N returns the first N bytes', ['s3.get.range-forms']],
  [
    's3-range-reversed-416',
    'A range whose last byte comes before its first (bytes=5-2) answers 416 instead of being ignored',
    ['s3.get.range-invalid-ignored'],
  ],
  [
    's3-range-malformed-500',
    'A range that is not a number (bytes=x-3) answers 500 InternalError instead of being ignored',
    ['s3.get.range-invalid-ignored'],
  ],
  [
    's3-range-unsatisfiable-200',
    'A range beyond the object answers 200 with the whole object instead of 416',
    ['s3.get.range-unsatisfiable'],
  ],
  [
    's3-public-gzip-no-content-encoding',
    'Public buckets serve gzip content without Content-Encoding',
    ['s3.get.public-gzip-encoding'],
  ],
  // Multipart
  ['s3-list-parts-empty', 'ListParts lists no parts', ['s3.mpu.list-parts']],
  ['s3-list-uploads-empty', 'ListMultipartUploads lists no uploads', ['s3.mpu.list-uploads']],
  ['s3-zero-length-part-rejected', 'UploadPart rejects a 0-length part', ['s3.mpu.zero-length-part']],
  [
    's3-zero-length-part-dropped',
    'UploadPart answers 200 to a 0-length part but does not keep it, so CompleteMultipartUpload cannot find it',
    ['s3.mpu.zero-length-part'],
  ],
  [
    's3-multipart-unequal-parts',
    'CompleteMultipartUpload accepts non-last parts of unequal size',
    ['s3.mpu.unequal-parts-rejected', 's3.limit.part-size', 's3.mpu.size-checked-at-complete'],
  ],
  [
    's3-multipart-larger-part-accepted',
    'CompleteMultipartUpload refuses a non-last part smaller than the first, but accepts one larger',
    ['s3.mpu.unequal-parts-rejected', 's3.limit.part-size', 's3.mpu.size-checked-at-complete'],
  ],
  [
    's3-multipart-size-check-off-by-one',
    'CompleteMultipartUpload compares the sizes of every part but the last two, so a second-to-last part of another size passes',
    ['s3.mpu.unequal-parts-rejected', 's3.limit.part-size', 's3.mpu.size-checked-at-complete'],
  ],
  [
    's3-part-size-checked-at-upload',
    'UploadPart rejects parts under 5 MiB at upload time',
    [
      's3.mpu.zero-length-part',
      's3.mpu.size-checked-at-complete',
      's3.checksum.multipart-composite',
      's3.sse.multipart',
    ],
  ],
  [
    's3-complete-unsorted-rejected',
    'CompleteMultipartUpload rejects parts not listed in ascending order',
    ['s3.mpu.complete-sorts-parts'],
  ],
  [
    's3-complete-parts-in-listed-order',
    'CompleteMultipartUpload accepts parts listed out of order, but assembles the object in the order listed',
    ['s3.mpu.complete-sorts-parts'],
  ],
  [
    's3-complete-etag-quotes-strict',
    'CompleteMultipartUpload compares part ETags with their quotes',
    ['s3.mpu.etag-quotes-ignored'],
  ],
  [
    's3-complete-etag-quotes-paired-only',
    'CompleteMultipartUpload strips the quotes of a part ETag only as a pair: a stray leading or trailing quote is compared',
    ['s3.mpu.etag-quotes-ignored'],
  ],
  ['s3-multipart-etag-no-suffix', 'Multipart ETags lack the -N suffix', ['s3.mpu.etag-format']],
  [
    's3-multipart-etag-suffix-last-number',
    'The -N suffix of a multipart ETag is the highest part number instead of the number of parts',
    ['s3.mpu.etag-format'],
  ],
  [
    's3-multipart-etag-parts-unsorted',
    'The multipart ETag hashes the part MD5s in the order Complete lists them, not in part-number order',
    ['s3.mpu.etag-format'],
  ],
  [
    's3-list-uploads-encoding-ignored',
    'ListMultipartUploads ignores encoding-type',
    ['s3.mpu.list-uploads-encoding'],
  ],
  [
    's3-list-uploads-encoding-latin1',
    "ListMultipartUploads escapes Key under encoding-type as JavaScript's escape() does, so é is %E9 instead of the UTF-8 %C3%A9",
    ['s3.mpu.list-uploads-encoding'],
  ],
  [
    's3-complete-condition-keeps-upload',
    'A complete request whose condition fails leaves the upload open',
    ['s3.mpu.conditional-complete-aborts', 's3.error.no-such-upload'],
  ],
  [
    's3-abort-repeat-error',
    'Aborting an already aborted upload answers NoSuchUpload',
    ['s3.mpu.abort-repeatable'],
  ],
  [
    's3-abort-keeps-upload',
    'AbortMultipartUpload answers 204 but leaves the upload in progress, so aborting it again succeeds too',
    ['s3.mpu.abort-repeatable', 's3.mpu.list-uploads', 's3.error.no-such-upload'],
  ],
  [
    's3-upload-part-unknown-upload-500',
    'UploadPart to an unknown or aborted upload answers 500 InternalError instead of 404 NoSuchUpload',
    ['s3.error.no-such-upload'],
  ],
  [
    's3-complete-unknown-upload-500',
    'CompleteMultipartUpload of an unknown or aborted upload answers 500 InternalError instead of 404 NoSuchUpload',
    ['s3.error.no-such-upload', 's3.mpu.conditional-complete-aborts'],
  ],
  // DeleteObjects
  [
    's3-delete-objects-over-limit',
    'DeleteObjects accepts more than 1000 keys',
    ['s3.error.malformed-xml', 's3.error.delete-over-limit', 's3.limit.delete-objects-keys'],
  ],
  [
    's3-delete-objects-over-limit-invalid-request',
    'DeleteObjects refuses more than 1000 keys with 400 InvalidRequest instead of MalformedXML',
    ['s3.error.malformed-xml', 's3.error.delete-over-limit'],
  ],
  [
    's3-delete-objects-limit-999',
    'DeleteObjects rejects a request of exactly 1000 keys',
    ['s3.delete.max-keys', 's3.limit.delete-objects-keys'],
  ],
  ['s3-delete-objects-trims-keys', 'DeleteObjects trims spaces around keys', ['s3.delete.no-trim']],
  // Listing
  [
    's3-list-prefix-ignored',
    'Listings ignore prefix',
    ['s3.list.prefix', 's3.list.delimiter', 's3.list.no-cursor-at-max-keys'],
  ],
  [
    's3-list-delimiter-ignored',
    'Listings ignore delimiter',
    ['s3.list.delimiter', 's3.list.encoding-type', 's3.list.empty-folder'],
  ],
  ['s3-list-start-after-ignored', 'Listings ignore start-after and marker', ['s3.list.start-after']],
  ['s3-list-max-keys-ignored', 'Listings ignore max-keys', ['s3.list.max-keys', 's3.list.pagination']],
  [
    's3-list-max-keys-off-by-one',
    'Listings return one entry more than max-keys when more follow',
    ['s3.list.max-keys'],
  ],
  [
    's3-list-max-keys-zero-unlimited',
    'ListObjects and ListObjectsV2 read max-keys 0 as not given: accepted, and a full page listed',
    ['s3.list.max-keys'],
  ],
  [
    's3-list-echoes-omitted',
    'Control: ListObjects and ListObjectsV2 answer without the Prefix element that echoes the request. No clause states that echo (encoding-type judges an echo only where sent), so no clause may fail',
    [],
  ],
  [
    's3-list-pagination-repeats-last',
    'A continuation token resumes at the last key already returned',
    ['s3.list.pagination'],
  ],
  ['s3-list-encoding-ignored', 'ListObjects ignores encoding-type', ['s3.list.encoding-type']],
  [
    's3-list-keys-always-encoded',
    'ListObjects URL-encodes keys even without encoding-type',
    [
      's3.list.encoding-type',
      's3.list.prefix',
      's3.list.delimiter',
      's3.list.start-after',
      's3.list.pagination',
    ],
  ],
  [
    's3-list-prefix-echo-unencoded',
    'With encoding-type url, ListObjects and ListObjectsV2 encode keys and common prefixes but echo Prefix as asked',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-delimiter-echo-unencoded',
    'With encoding-type url, ListObjects and ListObjectsV2 encode keys and common prefixes but echo Delimiter as asked',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-marker-echo-unencoded',
    'With encoding-type url, ListObjects (V1) encodes keys and common prefixes but echoes Marker as asked',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-next-marker-unencoded',
    'With encoding-type url, ListObjects (V1) encodes keys and common prefixes but sends NextMarker as stored',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-start-after-echo-unencoded',
    'With encoding-type url, ListObjectsV2 encodes keys and common prefixes but echoes StartAfter as asked',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-cursor-prefix-repeated',
    'A page continuing a token that ended on a common prefix lists that prefix again when start-after sorts inside it',
    ['s3.list.pagination'],
  ],
  [
    's3-list-utf16-order',
    'Listings order keys by UTF-16 code units (JavaScript string order), which puts keys above U+FFFF before those from U+E000 to U+FFFF',
    ['s3.list.pagination', 's3.list.key-order'],
  ],
  [
    's3-list-keycount-without-prefixes',
    'KeyCount counts keys but not common prefixes',
    ['s3.list.key-count'],
  ],
  [
    's3-list-keycount-whole-listing',
    'KeyCount of a truncated page counts every entry from the page to the end of the listing, not those of the page',
    ['s3.list.key-count'],
  ],
  [
    's3-list-empty-folder-as-key',
    'An empty folder key is listed as a key, not a common prefix',
    ['s3.list.delimiter', 's3.list.empty-folder'],
  ],
  [
    's3-list-next-marker-always',
    'ListObjects sets NextMarker also when not truncated',
    ['s3.list.next-marker', 's3.list.no-cursor-at-max-keys'],
  ],
  [
    's3-list-cursor-at-max-keys',
    'A cursor is returned when the key count equals MaxKeys even if nothing follows',
    ['s3.list.no-cursor-at-max-keys', 's3.list.next-marker'],
  ],
  [
    's3-list-v1-truncated-false-lies',
    'A ListObjects (V1) page cut at max-keys says IsTruncated false and gives no NextMarker, so a client stops before the keys that follow',
    ['s3.list.pagination'],
  ],
  [
    's3-list-v1-end-claims-truncated',
    'A ListObjects (V1) page that lists the rest of the listing, fewer entries than max-keys, says IsTruncated true and gives NextMarker',
    ['s3.list.next-marker'],
  ],
  ['s3-list-continuation-not-echoed', 'ContinuationToken is not echoed', ['s3.list.continuation-echo']],
  [
    's3-list-bad-cursor-internal-error',
    'An invalid continuation token answers 500 InternalError',
    ['s3.list.invalid-cursor'],
  ],
  [
    's3-list-cursor-shape-internal-error',
    'A continuation token that decodes but holds no cursor (base64 of {"x":1}) answers 500 InternalError',
    ['s3.list.invalid-cursor'],
  ],
  ['s3-list-max-keys-zero-rejected', 'max-keys 0 is rejected', ['s3.list.max-keys-zero']],
  [
    's3-list-buckets-cf-headers-ignored',
    'ListBuckets ignores the cf-max-keys, cf-start-after and cf-continuation-token headers',
    ['s3.list.buckets-cf-headers'],
  ],
  // CORS
  ['s3-cors-invalid-origin-accepted', 'PutBucketCors accepts invalid origins', ['s3.cors.valid-origins']],
  ['s3-cors-unknown-keys-accepted', 'PutBucketCors accepts unknown XML elements', ['s3.cors.unknown-keys']],
  [
    's3-cors-empty-header-accepted',
    'PutBucketCors accepts an empty AllowedHeader',
    ['s3.cors.empty-allowed-header'],
  ],
  [
    's3-cors-invalid-origin-500',
    'PutBucketCors fails an invalid origin with 500 InternalError instead of refusing it',
    ['s3.cors.valid-origins'],
  ],
  [
    's3-cors-unknown-keys-500',
    'PutBucketCors fails a document with an unknown element with 500 InternalError instead of refusing it',
    ['s3.cors.unknown-keys'],
  ],
  [
    's3-cors-unknown-keys-stored',
    'PutBucketCors answers 400 to a document with an unknown element but stores its rules anyway',
    ['s3.cors.unknown-keys'],
  ],
  [
    's3-cors-empty-header-stored',
    'PutBucketCors answers 400 to an empty AllowedHeader but stores the rule anyway',
    ['s3.cors.empty-allowed-header'],
  ],
  [
    's3-cors-open-forms',
    'Control: PutBucketCors answers 204 when it stores a document and 422 when it refuses one for an invalid origin, an unknown element or an empty AllowedHeader, and a granted preflight answers 204. SPEC names no status for any of them (a browser takes any 2xx preflight), so no clause may fail',
    [],
  ],
  [
    's3-cors-headers-case-sensitive',
    'AllowedHeaders match request headers case-sensitively',
    ['s3.cors.allowed-headers-case'],
  ],
  [
    's3-cors-allow-headers-as-spelled',
    'A preflight matches AllowedHeader case-insensitively but lists in Access-Control-Allow-Headers only the requested headers spelled as the rule spells them, so the origin is granted and a differently cased header is not',
    ['s3.cors.allowed-headers-case'],
  ],
  [
    's3-cors-wildcard-unmatched',
    'AllowedOrigin * matches no origin',
    ['s3.cors.wildcard', 's3.cors.preflight-public'],
  ],
  [
    's3-cors-actual-headers-missing',
    'Actual (non-preflight) requests with Origin get no CORS headers',
    ['s3.cors.wildcard', 's3.cors.presigned', 's3.cors.expose-headers'],
  ],
  [
    's3-cors-presigned-bare',
    'A presigned request with Origin is served without CORS headers, which are added only to requests signed in the Authorization header',
    ['s3.cors.presigned'],
  ],
  [
    's3-preflight-s3-forbidden',
    'Preflight requests to the S3 interface answer 403',
    [
      's3.cors.allowed-headers-case',
      's3.cors.wildcard',
      's3.cors.preflight-s3',
      's3.error.cors-no-match-not-403',
    ],
  ],
  [
    's3-cors-preflight-any-method',
    'A preflight is granted for an allowed origin whatever method it asks, AllowedMethod unchecked',
    ['s3.cors.preflight-s3'],
  ],
  [
    's3-preflight-public-no-cors',
    'Preflight requests to public buckets get no CORS headers',
    ['s3.cors.preflight-public'],
  ],
  [
    's3-preflight-public-any-origin',
    "The public entry point grants every preflight (Access-Control-Allow-Origin *), whatever origins the bucket's CORS rules list",
    ['s3.cors.preflight-public'],
  ],
  [
    's3-cors-expose-headers-always',
    'Access-Control-Expose-Headers is rendered (empty) without ExposeHeader',
    ['s3.cors.expose-headers'],
  ],
  [
    's3-public-options-401',
    'OPTIONS to the public entry point without Origin answers 401',
    ['s3.cors.public-options-no-origin', 's3.error.public-options-not-401'],
  ],
  [
    's3-cors-unlisted-origin-granted',
    'A preflight is granted by a rule whose method and headers match, whatever origin it lists: an origin no rule lists gets Access-Control-Allow-Origin',
    ['s3.cors.preflight-s3', 's3.cors.preflight-public'],
  ],
  [
    's3-cors-no-match-403',
    'A preflight matching no CORS rule answers 403',
    ['s3.error.cors-no-match-not-403'],
  ],
  // Lifecycle and XML
  [
    's3-lifecycle-not-stored',
    'PutBucketLifecycleConfiguration is accepted but the rules are not kept',
    [
      's3.lifecycle.rules',
      's3.lifecycle.rules-validated',
      's3.lifecycle.rule-id-assigned',
      's3.lifecycle.status-malformed-xml',
      's3.lifecycle.expiration-header',
    ],
  ],
  [
    's3-xml-declaration-rejected',
    'Request documents with an XML declaration are rejected as MalformedXML',
    [
      's3.cors.valid-origins',
      's3.delete.max-keys',
      's3.delete.no-trim',
      's3.encryption.put-aes256',
      's3.lifecycle.rules',
      's3.limit.delete-objects-keys',
      's3.mpu.etag-format',
      's3.xml.declaration-accepted',
      's3.checksum.multipart-composite',
      's3.copy.upload-part-copy-range',
    ],
  ],
  [
    's3-xml-declaration-sdk-form-only',
    'Only the XML declaration the AWS SDKs write (<?xml version="1.0" encoding="UTF-8"?>) is accepted; a request document declared otherwise (single quotes, utf-8 in lower case, no encoding) is rejected as MalformedXML',
    ['s3.xml.declaration-accepted'],
  ],
  ['s3-error-xmlns', 'Error documents carry xmlns on the top-level Error element', ['s3.xml.error-no-xmlns']],
  ['s3-xml-text-content-type', 'XML answers carry Content-Type text/xml', ['s3.xml.content-type']],
  [
    's3-xml-result-text-content-type',
    'Success documents other than listings (GetBucketLocation, DeleteObjects, the stand-ins...) carry Content-Type text/xml; errors and listings keep application/xml',
    ['s3.xml.content-type'],
  ],
  [
    's3-cors-malformed-bare-400',
    'PutBucketCors with a body that is not well-formed XML answers 400 with no error document, so without the code MalformedXML (DeleteObjects answers MalformedXML)',
    ['s3.error.malformed-xml'],
  ],
  [
    's3-malformed-xml-500',
    'A malformed request document answers 500 InternalError',
    ['s3.error.malformed-xml'],
  ],
  // Presigned URLs and authentication
  [
    's3-presign-object-rejected',
    'Presigned GetObject and PutObject are refused',
    ['s3.cors.presigned', 's3.presign.object', 's3.get.response-overrides'],
  ],
  [
    's3-presign-list-rejected',
    'Presigned ListBuckets and ListObjects are refused',
    ['s3.presign.list-buckets', 's3.presign.list-objects'],
  ],
  [
    's3-signed-payload-rejected',
    'Requests with a signed payload hash are refused as SignatureDoesNotMatch',
    [
      's3.cors.valid-origins',
      's3.encryption.delete',
      's3.encryption.get',
      's3.encryption.put-aes256',
      's3.get.content-range-partial-only',
      's3.get.range-206',
      's3.get.range-inclusive',
      's3.lifecycle.rules',
      's3.presign.signed-payload',
      's3.put.checksum-mismatch',
      's3.put.checksum-sha1',
      's3.put.checksum-sha256',
      's3.region.get-bucket-location-sdk',
      's3.standin.get-bucket-acl',
      's3.standin.get-bucket-lifecycle',
      's3.standin.get-bucket-replication',
      's3.standin.get-bucket-tagging',
      's3.standin.get-bucket-versioning',
      's3.standin.get-object-lock',
      's3.sse.aes256',
      's3.object.user-metadata',
      's3.copy.etag',
      's3.checksum.put-algorithms',
      's3.put.aws-chunked-not-streaming',
      // Their refusals come 403, not the 400 their clauses name, whatever the valid twin got.
      's3.lifecycle.rules-validated',
      's3.lifecycle.status-malformed-xml',
    ],
  ],
  [
    's3-payload-hash-compared-as-base64',
    "PutObject compares x-amz-content-sha256 with the body's SHA-256 in base64, as x-amz-checksum-sha256 is written: an object sent with its signed payload hash is refused as XAmzContentSHA256Mismatch",
    [
      's3.presign.signed-payload',
      // The SDK's PutObjects with a checksum sign their payload, as the aws-chunked case's does.
      's3.put.checksum-sha256',
      's3.put.checksum-sha1',
      's3.checksum.put-algorithms',
      's3.put.aws-chunked-not-streaming',
    ],
  ],
  [
    's3-accept-encoding-unsigned',
    'Accept-Encoding is left out when the signature is computed',
    ['s3.presign.accept-encoding-signed'],
  ],
  [
    's3-presign-accept-encoding-unsigned',
    'accept-encoding in X-Amz-SignedHeaders is left out when a presigned URL is verified',
    ['s3.presign.accept-encoding-signed'],
  ],
  [
    's3-presign-extra-query-unsigned',
    'Presigned URLs are verified over their X-Amz-* query parameters alone, so one whose query holds anything else fails with SignatureDoesNotMatch',
    ['s3.presign.list-objects', 's3.get.response-overrides'],
  ],
  ['s3-presign-expiry-unchecked', 'Expired presigned URLs are accepted', ['s3.presign.expired']],
  [
    's3-presign-fixed-window',
    'X-Amz-Expires is ignored: every presigned URL lasts 15 minutes from its X-Amz-Date',
    ['s3.presign.expired'],
  ],
  [
    's3-presign-expires-as-ms',
    'X-Amz-Expires is read as milliseconds: a URL signed two minutes ago for 15 minutes is refused',
    ['s3.presign.expired'],
  ],
  ['s3-unsigned-accepted', 'Unsigned requests are accepted', ['s3.auth.sigv4', 's3.put.expect-continue']],
  ['s3-signature-unchecked', 'The signature is not checked', ['s3.auth.signature-mismatch']],
  [
    's3-presign-signature-unchecked',
    'Presigned URLs are served without their X-Amz-Signature being verified',
    ['s3.auth.signature-mismatch'],
  ],
  [
    's3-secret-echoed',
    'SignatureDoesNotMatch errors echo the secret access key the signature was checked against',
    ['s3.auth.secret-not-echoed'],
  ],
  [
    's3-no-such-key-debug-credentials',
    'NoSuchKey errors carry a debug header naming the access key id and the secret access key the request was checked with',
    ['s3.auth.secret-not-echoed'],
  ],
  // Error codes
  [
    's3-missing-bucket-403',
    'A missing bucket answers 403 AccessDenied instead of 404 NoSuchBucket',
    ['s3.copy.missing-destination-bucket', 's3.copy.missing-source', 's3.error.missing-bucket-404'],
  ],
  [
    's3-no-such-key-generic',
    'A missing key answers the code NotFound instead of NoSuchKey',
    ['s3.copy.missing-source', 's3.error.no-such-key', 's3.cond.missing-key-404'],
  ],
  [
    's3-no-such-upload-generic',
    'A missing upload answers the code NotFound instead of NoSuchUpload',
    ['s3.error.no-such-upload'],
  ],
  // Object semantics clients rely on (source: s3 clauses, and SPEC behaviours 5, 6, 8, 11)
  [
    's3-sse-put-not-implemented',
    'PutObject refuses x-amz-server-side-encryption with 501 NotImplemented whatever it names, AES256 included (CopyObject and multipart uploads take it)',
    ['s3.sse.aes256'],
  ],
  [
    's3-sse-header-not-echoed',
    'PutObject with x-amz-server-side-encryption AES256 answers without that header',
    ['s3.sse.aes256'],
  ],
  [
    's3-sse-not-kept',
    'The object does not keep the AES256 encryption its PutObject asked for: GET and HEAD omit it',
    ['s3.sse.aes256'],
  ],
  [
    's3-sse-kms-ignored',
    'x-amz-server-side-encryption aws:kms is ignored: the object is stored with 200, as if no encryption had been asked for',
    ['s3.sse.unsupported-not-implemented', 's3.error.not-implemented'],
  ],
  [
    's3-sse-c-ignored',
    'SSE-C headers (a customer-provided key) are ignored: the object is stored in plain text with 200',
    ['s3.sse.unsupported-not-implemented', 's3.error.not-implemented'],
  ],
  [
    's3-content-encoding-joined',
    'A Content-Encoding of several codings is stored rejoined without spaces (deflate, gzip comes back as deflate,gzip)',
    ['s3.object.content-headers', 's3.copy.metadata-directive', 's3.object.multipart-headers'],
  ],
  [
    's3-metadata-dropped',
    'User metadata (x-amz-meta-*) of a write is not stored',
    [
      's3.object.user-metadata',
      's3.object.multipart-headers',
      's3.copy.metadata-directive',
      's3.copy.onto-itself',
    ],
  ],
  [
    's3-head-content-length-zero',
    'HeadObject of an object a PutObject wrote answers Content-Length 0, the length of its own empty body, instead of the object size (copies and multipart objects answer theirs)',
    ['s3.object.content-headers'],
  ],
  [
    's3-head-content-type-omitted',
    'HeadObject of an object a PutObject wrote under a key without an extension answers no Content-Type, as a server typing a HEAD by the key extension would (GetObject gives it)',
    ['s3.object.content-headers'],
  ],
  [
    's3-metadata-head-omitted',
    'HeadObject answers without the user metadata that GetObject returns',
    ['s3.object.user-metadata', 's3.object.multipart-headers', 's3.copy.metadata-directive'],
  ],
  [
    's3-multipart-headers-dropped',
    'CompleteMultipartUpload leaves out the content headers and metadata given on CreateMultipartUpload',
    ['s3.object.multipart-headers'],
  ],
  [
    's3-copy-replace-ignored',
    'CopyObject with x-amz-metadata-directive REPLACE keeps the source metadata, as COPY does',
    ['s3.copy.metadata-directive', 's3.copy.onto-itself'],
  ],
  [
    's3-copy-metadata-not-copied',
    'CopyObject without REPLACE gives the copy no metadata and no content headers of its source',
    ['s3.copy.metadata-directive'],
  ],
  [
    's3-copy-etag-fresh',
    'A copy gets an ETag of its own instead of the ETag of the bytes it copied',
    ['s3.copy.etag'],
  ],
  [
    's3-copy-self-allowed',
    'CopyObject onto its own source without REPLACE is accepted',
    ['s3.copy.onto-itself'],
  ],
  [
    's3-copy-self-replace-refused',
    'CopyObject onto its own source is refused even with REPLACE',
    ['s3.copy.onto-itself'],
  ],
  // Worker bindings (served by the reference's bindings probe contract)
  [
    'bindings-put-only-if-ignored',
    'put() writes whatever its onlyIf conditions say, instead of returning null when they fail',
    ['s3.bindings.put-only-if'],
  ],
  [
    'bindings-put-sha384-dropped',
    'put() verifies a SHA-384 checksum but does not store it: the returned checksums lack sha384',
    ['s3.bindings.put-checksums'],
  ],
  [
    'bindings-head-md5-missing',
    'head() returns no MD5 checksum for an object written whole (only put() and get() report it)',
    ['s3.bindings.stored-checksums'],
  ],
  [
    'bindings-delete-first-key-only',
    'delete() of an array of keys deletes only the first one',
    ['s3.bindings.delete-multiple'],
  ],
  [
    'bindings-multipart-missing',
    'The binding has no createMultipartUpload (a TypeError, as on a runtime without multipart bindings)',
    ['s3.bindings.multipart'],
  ],
  [
    'bindings-etag-list-first-only',
    'Only the first ETag of a conditional header list is compared',
    ['s3.bindings.conditional-etags'],
  ],
  [
    'bindings-weak-etag-rejected',
    'A weak ETag (W/"...") in a conditional header is refused as an invalid ETag',
    ['s3.bindings.conditional-etags'],
  ],
  [
    'bindings-wildcard-ignored',
    'The wildcard * in a conditional header matches nothing',
    ['s3.bindings.conditional-etags'],
  ],
  [
    'bindings-list-limit-ignored',
    'list() ignores limit and returns up to 1000 objects',
    ['s3.bindings.list-limit'],
  ],
  [
    'bindings-list-shrunk-not-truncated',
    'A list() page made smaller because its data is too large says it is not truncated, so the rest is lost',
    ['s3.bindings.list-limit'],
  ],
  [
    'bindings-list-include-ignored',
    'list() returns all metadata whatever include says, as without the r2_list_honor_include flag',
    ['s3.bindings.list-include'],
  ],
  [
    'bindings-malformed-range-internal',
    'A malformed range given to get() throws an internal error instead of a RangeError or TypeError',
    ['s3.bindings.malformed-range'],
  ],
  [
    's3-checksum-not-answered',
    'PutObject stores the checksum it was sent but answers without x-amz-checksum-*',
    ['s3.checksum.put-algorithms'],
  ],
  [
    's3-checksum-mode-ignored',
    'GetObject and HeadObject ignore x-amz-checksum-mode ENABLED and return no checksum',
    ['s3.checksum.mode-enabled', 's3.checksum.multipart-composite'],
  ],
  [
    's3-part-checksum-not-answered',
    'UploadPart answers without the checksum of the part it was sent',
    ['s3.checksum.multipart-composite'],
  ],
  [
    's3-complete-checksum-of-body',
    'CompleteMultipartUpload checks x-amz-checksum-* against its XML body instead of the parts: a correct composite is 400 BadDigest',
    ['s3.checksum.multipart-composite'],
  ],
  [
    's3-complete-checksum-missing',
    'A completed upload created with a checksum algorithm has no checksum: neither Complete nor HEAD return one',
    ['s3.checksum.multipart-composite'],
  ],
  [
    's3-complete-repeat-no-such-upload',
    'CompleteMultipartUpload of an upload already completed answers 404 NoSuchUpload',
    ['s3.mpu.complete-repeatable'],
  ],
  [
    's3-part-copy-range-clipped',
    'UploadPartCopy clips a x-amz-copy-source-range that ends past the source, instead of refusing it',
    ['s3.copy.upload-part-copy-range'],
  ],
  [
    's3-part-copy-range-end-at-size-accepted',
    'UploadPartCopy refuses a x-amz-copy-source-range ending well past the source but copies one ending a byte past it (bytes=3-5 of 5 bytes), clipped (end > size instead of end >= size)',
    ['s3.copy.upload-part-copy-range'],
  ],
  [
    's3-multipart-etags-unquoted',
    'Control: UploadPart answers, and ListParts lists, part ETags without double quotes, and a completed upload has its ETag (MD5 of the part MD5s, -N) without them on every answer. No clause states how a part or multipart ETag is quoted, so no clause may fail',
    [],
  ],
  [
    's3-part-copy-etag-unquoted',
    'Control: UploadPartCopy answers the part ETag in CopyPartResult without its double quotes. No clause states how a part ETag is quoted (CompleteMultipartUpload ignores quotes around part ETags), so no clause may fail',
    [],
  ],
  [
    's3-part-copy-range-exclusive',
    'UploadPartCopy reads the last byte of x-amz-copy-source-range as exclusive and copies one byte less',
    ['s3.copy.upload-part-copy', 's3.copy.upload-part-copy-range'],
  ],
  [
    's3-lifecycle-unvalidated',
    'PutBucketLifecycleConfiguration stores any rules: long or repeated IDs, any Status, Days 0',
    ['s3.lifecycle.rules-validated', 's3.lifecycle.status-malformed-xml'],
  ],
  [
    's3-lifecycle-days-zero-accepted',
    'PutBucketLifecycleConfiguration accepts an expiration after 0 days',
    ['s3.lifecycle.rules-validated'],
  ],
  // Authentication
  [
    's3-te-cl-served',
    'A request with Transfer-Encoding and Content-Length is served, framed by Transfer-Encoding (RFC 9112)',
    ['s3.auth.te-cl-declined'],
  ],
  [
    's3-te-cl-declined-after-write',
    'A request with Transfer-Encoding and Content-Length is carried out, then answered 400',
    ['s3.auth.te-cl-declined'],
  ],
  // Worker bindings, second ways
  [
    'bindings-put-sha512-dropped',
    'put() verifies a SHA-512 checksum but does not store it: the returned checksums lack sha512',
    ['s3.bindings.put-checksums'],
  ],
  [
    'bindings-put-only-if-after-write',
    'put() writes the object, then returns null when its onlyIf conditions fail',
    ['s3.bindings.put-only-if'],
  ],
  [
    'bindings-delete-array-as-one-key',
    'delete() of an array of keys deletes the one key its elements make joined by commas',
    ['s3.bindings.delete-multiple'],
  ],
  // Second ways to break clauses that had only one
  [
    's3-head-bucket-region-missing',
    'HeadBucket answers without the x-amz-bucket-region header',
    ['s3.region.head-bucket-header'],
  ],
  [
    's3-object-lock-invalid-request',
    'CreateBucket with object lock true is refused as 400 InvalidRequest instead of 501 NotImplemented',
    ['s3.lock.create-enabled-not-implemented', 's3.error.not-implemented'],
  ],
  [
    's3-range-start-at-size-satisfiable',
    'A range starting exactly at the object size is served as an empty 206 (start > size instead of start >= size)',
    ['s3.get.range-unsatisfiable'],
  ],
  [
    's3-list-parts-number-zero-based',
    'ListParts numbers the parts by their index from 0 instead of their part number',
    ['s3.mpu.list-parts'],
  ],
  [
    's3-list-start-after-inclusive',
    'Listings include the key equal to start-after or marker (>= instead of >)',
    ['s3.list.start-after'],
  ],
  [
    's3-signature-mismatch-access-denied',
    'A signature that does not match answers 403 AccessDenied instead of SignatureDoesNotMatch',
    ['s3.auth.signature-mismatch'],
  ],
  [
    's3-unsigned-get-accepted',
    'Unsigned GET requests to a private bucket are served, as for a public bucket',
    ['s3.auth.sigv4'],
  ],
  [
    's3-checksum-mode-head-ignored',
    'HeadObject ignores x-amz-checksum-mode ENABLED (GetObject honours it)',
    ['s3.checksum.mode-enabled', 's3.checksum.multipart-composite'],
  ],
  [
    's3-presign-put-rejected',
    'Presigned URLs are accepted for GET only; a presigned PutObject is refused',
    ['s3.presign.object'],
  ],
  [
    's3-presign-service-rejected',
    'A presigned request to the service (ListBuckets) is refused; bucket and object URLs are accepted',
    ['s3.presign.list-buckets'],
  ],
  [
    's3-x-id-mismatch-rejected',
    'A request whose x-id names another action than the one it selects is refused as InvalidArgument',
    ['s3.params.x-id-ignored'],
  ],
  [
    's3-content-type-from-extension',
    "PutObject without Content-Type takes the type from the key's extension instead of the body",
    ['s3.put.content-type-inferred'],
  ],
  [
    's3-region-empty-rejected',
    'Signatures for an empty region are refused as a malformed scope; us-east-1 and auto are accepted',
    ['s3.region.aliases'],
  ],
  [
    's3-object-lock-false-created-then-refused',
    'CreateBucket with object lock false creates the bucket, then answers 501 NotImplemented',
    ['s3.lock.create-disabled-accepted'],
  ],
  [
    's3-encryption-kms-accepted',
    'PutBucketEncryption accepts aws:kms, as Amazon S3 does',
    ['s3.encryption.put-other-rejected'],
  ],
  [
    's3-list-v1-unknown-params-ignored',
    'ListObjects (V1) ignores unknown parameters; only ListObjectsV2 answers them 501',
    ['s3.unsupported.list-params', 's3.error.not-implemented'],
  ],
  [
    's3-list-buckets-cf-start-after-ignored',
    'ListBuckets honours cf-max-keys but ignores the cf-start-after header',
    ['s3.list.buckets-cf-headers'],
  ],
  [
    's3-create-bucket-if-missing-then-no-such-bucket',
    'PutObject with cf-create-bucket-if-missing creates the bucket, then answers NoSuchBucket without storing the object',
    ['s3.put.create-bucket-if-missing'],
  ],
  [
    's3-copy-source-no-slash-accepted',
    'A copy source without a leading slash (sourcebucket/sourcekey) is accepted',
    ['s3.copy.source-leading-slash'],
  ],
  [
    's3-delete-objects-limit-1001',
    'DeleteObjects accepts 1001 keys (an off-by-one in the 1000-key limit)',
    ['s3.error.malformed-xml', 's3.error.delete-over-limit', 's3.limit.delete-objects-keys'],
  ],
  [
    's3-public-options-403',
    'OPTIONS to the public entry point without Origin answers 403 AccessDenied instead of 400',
    ['s3.cors.public-options-no-origin'],
  ],
  [
    'bindings-list-include-any-means-all',
    'list() with include naming one kind of metadata returns both kinds',
    ['s3.bindings.list-include'],
  ],
  [
    's3-presign-bucket-rejected',
    'Presigned URLs are refused for a bucket (ListObjects); object URLs are accepted',
    ['s3.presign.list-objects'],
  ],
  [
    'bindings-get-md5-missing',
    'get() returns no MD5 checksum for an object written whole (head() does)',
    ['s3.bindings.stored-checksums'],
  ],
  [
    's3-public-gzip-always-decoded',
    'The public entry point decodes gzip content even for clients that accept gzip, and sends no Content-Encoding',
    ['s3.get.public-gzip-encoding'],
  ],
  [
    's3-content-language-dropped',
    'PutObject does not keep Content-Language',
    ['s3.object.content-headers', 's3.copy.metadata-directive', 's3.object.multipart-headers'],
  ],
  [
    's3-missing-bucket-no-such-key',
    'A missing bucket answers 404 NoSuchKey instead of NoSuchBucket',
    ['s3.copy.missing-destination-bucket', 's3.copy.missing-source', 's3.error.missing-bucket-404'],
  ],
  [
    's3-x-purpose-query-not-implemented',
    'x-purpose in the query string is answered 501 as an unknown parameter (the header is ignored)',
    ['s3.params.x-purpose-ignored'],
  ],
  [
    's3-put-post-as-form',
    "PutObject by POST is read as Amazon S3's browser form upload and refused as MalformedPOSTRequest",
    ['s3.put.post'],
  ],
  [
    's3-list-uploads-keys-always-encoded',
    'ListMultipartUploads URL-encodes Key even without encoding-type',
    ['s3.mpu.list-uploads'],
  ],
  [
    's3-list-uploads-without-parts-hidden',
    'ListMultipartUploads finds uploads through their parts, so one with no part yet is not listed',
    ['s3.mpu.list-uploads'],
  ],
  [
    's3-list-continuation-echo-decoded',
    'ContinuationToken echoes the key the token continues after instead of the token as sent',
    ['s3.list.continuation-echo'],
  ],
  [
    's3-complete-repeat-empty-result',
    'A repeated CompleteMultipartUpload answers 200 with no CompleteMultipartUploadResult',
    ['s3.mpu.complete-repeatable'],
  ],
  [
    's3-cors-rule-unknown-keys-accepted',
    'PutBucketCors refuses unknown elements at the top of the document but accepts them inside a CORSRule',
    ['s3.cors.unknown-keys'],
  ],
  [
    's3-list-v1-prefix-ignored',
    'ListObjects (V1) ignores prefix; ListObjectsV2 honours it',
    ['s3.list.prefix', 's3.list.no-cursor-at-max-keys'],
  ],
  [
    's3-no-such-key-no-body',
    'GetObject of a missing key answers 404 with no error document, as HEAD does',
    ['s3.error.no-such-key', 's3.cond.missing-key-404'],
  ],
  [
    's3-xml-error-html-content-type',
    "Error documents carry the web framework's error-page type text/html instead of application/xml",
    ['s3.xml.content-type'],
  ],
  // Checks strengthened after probes of foreign servers: authentication
  [
    's3-unsigned-list-accepted',
    'Unsigned GET requests to a bucket (ListObjects, ListObjectsV2) are served; unsigned object reads are still refused',
    ['s3.auth.sigv4'],
  ],
  [
    's3-unsigned-put-stored-then-refused',
    'An unsigned PutObject is answered 403, but the object was stored before the signature was looked at',
    ['s3.auth.sigv4'],
  ],
  [
    's3-signature-malformed-internal-error',
    'An Authorization header that is not a SigV4 header (Authorization: garbage) answers 500 InternalError',
    ['s3.auth.sigv4'],
  ],
  [
    's3-signature-replay-accepted',
    'Verified signatures are cached and taken again unchecked: a request whose signed header was changed after signing is served',
    ['s3.auth.signature-mismatch'],
  ],
  // Unsupported operations carried out as another
  [
    's3-unsupported-get-as-get-object',
    'An unsupported object GET (?torrent, ?attributes) falls through to GetObject and answers the object',
    ['s3.unsupported.not-converted'],
  ],
  [
    's3-unsupported-get-as-list-objects',
    'An unsupported bucket GET (?accelerate, ?logging, ?requestPayment) falls through to ListObjects and answers a ListBucketResult',
    ['s3.unsupported.not-converted'],
  ],
  [
    's3-unsupported-put-as-create-bucket',
    'An unsupported bucket PUT (?versioning, ?object-lock) falls through to CreateBucket and answers 409 BucketAlreadyOwnedByYou',
    ['s3.unsupported.not-implemented', 's3.unsupported.not-converted', 's3.error.not-implemented'],
  ],
  // Stand-ins
  [
    's3-standin-versioning-enabled',
    'GetBucketVersioning of a fresh bucket reports Status Enabled',
    ['s3.standin.get-bucket-versioning'],
  ],
  [
    's3-standin-versioning-as-list-versions',
    'GetBucketVersioning (?versioning) is answered as ListObjectVersions (?versions) would answer a fresh bucket: an empty ListVersionsResult',
    ['s3.standin.get-bucket-versioning'],
  ],
  [
    's3-standin-operation-roots',
    'Control: every stand-in read answers its document under a root named for the operation (<GetBucketVersioningResponse>, as moto answers). SPEC names no document, and the SDKs read the same configuration, so no clause may fail',
    [],
  ],
  [
    's3-standin-as-list-objects',
    'The read-only stand-ins fall through to ListObjects: GetBucketAcl, GetBucketVersioning and the others answer a ListBucketResult',
    [
      's3.standin.get-bucket-acl',
      's3.standin.get-bucket-versioning',
      's3.standin.get-bucket-lifecycle',
      's3.standin.get-bucket-replication',
      's3.standin.get-bucket-tagging',
      's3.standin.get-object-lock',
    ],
  ],
  // Error documents
  [
    's3-no-such-upload-xmlns',
    'NoSuchUpload error documents carry xmlns on the top-level Error element (other errors do not)',
    ['s3.xml.error-no-xmlns'],
  ],
  // Listing
  [
    's3-list-marker-prefixes-relisted',
    'With a delimiter, start-after and marker skip keys but not common prefixes: a common prefix wholly at or before the marker is listed again',
    ['s3.list.start-after'],
  ],
  [
    's3-list-nested-keys-dropped',
    'With a delimiter, a key holding it twice or more after the prefix (c/d/e) is left out instead of rolled up into its first common prefix',
    ['s3.list.delimiter'],
  ],
  [
    's3-list-v1-prefixes-unencoded',
    'ListObjects (V1) with encoding-type url encodes keys but leaves CommonPrefixes as stored',
    ['s3.list.encoding-type'],
  ],
  [
    's3-list-path-order',
    "Keys are listed in a file system's order, segment by segment (a/1 before a-x), not by their bytes",
    ['s3.list.pagination', 's3.list.key-order'],
  ],
  [
    's3-list-buckets-cf-continuation-token-ignored',
    'ListBuckets honours cf-max-keys and cf-start-after but ignores the cf-continuation-token header',
    ['s3.list.buckets-cf-headers'],
  ],
  // Found by ceph/s3-tests against the reference, and what remains near them
  [
    's3-sse-bucket-default-not-applied',
    "The bucket's default encryption is reported by GetBucketEncryption but never applied: a write that asks for no encryption is answered and read back without x-amz-server-side-encryption",
    ['s3.sse.bucket-default', 's3.encryption.delete-resets-default'],
  ],
  [
    's3-sse-bucket-default-not-kept',
    "PutObject answers the bucket's default encryption, but the object does not keep it: GET and HEAD answer no x-amz-server-side-encryption",
    ['s3.sse.bucket-default'],
  ],
  [
    's3-sse-bucket-default-head-omitted',
    "HEAD of an object encrypted by its bucket's default answers no x-amz-server-side-encryption (GET does)",
    ['s3.sse.bucket-default'],
  ],
  [
    's3-sse-copy-header-missing',
    'CopyObject with x-amz-server-side-encryption AES256 encrypts the copy but answers without the header',
    ['s3.sse.copy'],
  ],
  [
    's3-sse-part-copy-header-missing',
    'UploadPartCopy into an upload created with AES256 answers without x-amz-server-side-encryption',
    ['s3.sse.copy'],
  ],
  [
    's3-sse-upload-part-header-missing',
    'UploadPart into an upload created with AES256 answers without x-amz-server-side-encryption',
    ['s3.sse.multipart'],
  ],
  [
    's3-sse-complete-header-missing',
    'CompleteMultipartUpload of an upload created with AES256 answers without x-amz-server-side-encryption (the object keeps it)',
    ['s3.sse.multipart'],
  ],
  [
    's3-sse-kms-key-alone-accepted',
    'x-amz-server-side-encryption-aws-kms-key-id without x-amz-server-side-encryption is ignored: PutObject stores the object with 200',
    ['s3.sse.request-headers-refused'],
  ],
  [
    's3-sse-read-header-ignored',
    'x-amz-server-side-encryption on GetObject and HeadObject is ignored: the object is served with 200',
    ['s3.sse.request-headers-refused'],
  ],
  [
    's3-sse-head-header-ignored',
    'x-amz-server-side-encryption on HeadObject is ignored (GetObject refuses it with 400)',
    ['s3.sse.request-headers-refused'],
  ],
  [
    's3-encryption-delete-removes-configuration',
    'DeleteBucketEncryption removes the configuration, as Amazon S3 did before 2023: GetBucketEncryption then answers 404 ServerSideEncryptionConfigurationNotFoundError and writes get no encryption',
    ['s3.encryption.delete-resets-default'],
  ],
  [
    's3-encryption-delete-deletes-bucket',
    'DeleteBucketEncryption on an empty bucket is carried out as DeleteBucket: it answers 204 and the bucket is gone',
    ['s3.encryption.delete', 's3.encryption.delete-resets-default'],
  ],
  [
    's3-encryption-delete-unset-404',
    'DeleteBucketEncryption on a bucket no PutBucketEncryption configured answers 404 ServerSideEncryptionConfigurationNotFoundError; after one, it deletes it',
    ['s3.encryption.delete'],
  ],
  [
    's3-encryption-delete-stops-default',
    'After DeleteBucketEncryption, GetBucketEncryption still reports AES256 but writes are no longer encrypted',
    ['s3.encryption.delete-resets-default'],
  ],
  [
    's3-aws-chunked-by-content-encoding',
    'aws-chunked in Content-Encoding is read as chunked framing whatever x-amz-content-sha256 says: an ordinary PutObject with gzip, aws-chunked answers 400 IncompleteBody',
    ['s3.put.aws-chunked-not-streaming'],
  ],
  [
    's3-aws-chunked-kept-when-not-streaming',
    'aws-chunked is taken out of Content-Encoding only for a streaming-signed upload: an ordinary PutObject keeps gzip, aws-chunked as sent',
    ['s3.put.aws-chunked-not-streaming'],
  ],
  [
    's3-aws-chunked-only-trailing-stripped',
    'Only a trailing aws-chunked is taken out of Content-Encoding (where SDKs put it): aws-chunked, gzip is kept as sent',
    ['s3.put.aws-chunked-not-streaming'],
  ],
  [
    's3-lifecycle-id-not-assigned',
    'A lifecycle rule put without an ID is stored and returned without one',
    ['s3.lifecycle.rule-id-assigned'],
  ],
  [
    's3-lifecycle-id-shared',
    'Lifecycle rules put without an ID all get the same one',
    ['s3.lifecycle.rule-id-assigned'],
  ],
  [
    's3-lifecycle-status-invalid-argument',
    'A lifecycle Status other than Enabled or Disabled is refused with 400 InvalidArgument instead of MalformedXML',
    ['s3.lifecycle.status-malformed-xml'],
  ],
  [
    's3-lifecycle-status-any-case',
    'A lifecycle Status is matched without regard to case: enabled and disabled are accepted',
    ['s3.lifecycle.status-malformed-xml'],
  ],
  [
    's3-multipart-content-encoding-first-coding',
    'CreateMultipartUpload keeps only the first coding of a Content-Encoding list (deflate, gzip becomes deflate)',
    ['s3.object.multipart-headers'],
  ],
  [
    's3-copy-replace-keeps-content-encoding',
    "CopyObject with REPLACE keeps the source's Content-Encoding when the request gives none",
    ['s3.copy.metadata-directive'],
  ],
  [
    's3-part-copy-etag-hashed-twice',
    'UploadPartCopy of a whole object hashes its bytes twice into the part ETag, so the completed object ETag is not built from the parts MD5s',
    ['s3.mpu.etag-format'],
  ],
  // What common clients read from an answer
  [
    's3-put-etag-unquoted',
    'PutObject answers the ETag without its double quotes (GET and HEAD give it quoted)',
    ['s3.object.etag-md5'],
  ],
  [
    's3-object-etag-unquoted',
    'An object written by PutObject has its ETag (the MD5 of its bytes) without double quotes, on the PutObject answer, GET, HEAD, listings and copies alike',
    ['s3.object.etag-md5'],
  ],
  [
    's3-empty-object-etag-blank',
    'A PutObject of no bytes gets the ETag "" instead of the MD5 of nothing (d41d8cd98f00b204e9800998ecf8427e)',
    ['s3.object.etag-md5'],
  ],
  [
    's3-get-etag-weak',
    'GET of an object written whole answers its ETag weak (W/"..."), as a compressing proxy does; HEAD answers it strong',
    ['s3.object.etag-md5'],
  ],
  [
    's3-put-etag-omitted',
    'PutObject of no bytes answers without an ETag header, as a server that hashes only the bytes it is fed may (GET and HEAD of the object give it)',
    ['s3.object.etag-md5'],
  ],
  ['s3-last-modified-get-omitted', 'GET answers no Last-Modified (HEAD does)', ['s3.object.last-modified']],
  [
    's3-last-modified-kept-on-overwrite',
    'An overwritten object keeps the Last-Modified of its first write',
    ['s3.object.last-modified'],
  ],
  ['s3-list-etag-unquoted', 'Listings give ETags without their double quotes', ['s3.list.object-attributes']],
  [
    's3-list-last-modified-http-date',
    "Listings give each key's LastModified as an HTTP date (the Last-Modified header's form), not ISO 8601",
    ['s3.list.object-attributes'],
  ],
  [
    's3-list-last-modified-now',
    "Listings give each key's LastModified as the time of the listing",
    ['s3.list.object-attributes'],
  ],
  [
    's3-cond-modified-since-ignored',
    'If-Modified-Since on GET and HEAD is ignored: an unmodified object is served with 200',
    ['s3.cond.get-dates'],
  ],
  [
    's3-cond-unmodified-since-ignored',
    'If-Unmodified-Since on GET and HEAD is ignored: a modified object is served with 200',
    ['s3.cond.get-dates'],
  ],
  [
    's3-cond-dates-to-the-millisecond',
    'If-Modified-Since and If-Unmodified-Since are compared to the millisecond: If-Modified-Since equal to Last-Modified answers 200',
    ['s3.cond.get-dates'],
  ],
  [
    's3-cond-unmodified-since-over-if-match',
    'A false If-Unmodified-Since answers 412 even when If-Match holds',
    ['s3.cond.get-dates'],
  ],
  [
    's3-response-overrides-ignored',
    'The response-* parameters of GetObject are ignored: the object is served with its own headers',
    ['s3.get.response-overrides'],
  ],
  [
    's3-response-overrides-type-and-disposition-only',
    'Of the response-* parameters, only response-content-type and response-content-disposition are honoured',
    ['s3.get.response-overrides'],
  ],
  // What clients rely on beyond SPEC (source: s3), each named after the client that relies on it
  [
    's3-content-md5-ignored',
    'Content-MD5 is never checked: a PutObject or UploadPart whose body does not match it is stored',
    ['s3.put.content-md5'],
  ],
  [
    's3-part-content-md5-ignored',
    'UploadPart does not check Content-MD5 (PutObject does): a corrupted part is stored',
    ['s3.put.content-md5'],
  ],
  [
    's3-content-md5-invalid-digest',
    'A Content-MD5 that does not match the body is refused with 400 InvalidDigest (the code of a malformed one), not BadDigest',
    ['s3.put.content-md5'],
  ],
  [
    's3-content-md5-checked-after-store',
    'PutObject stores the object, then refuses a Content-MD5 that does not match it with 400 BadDigest',
    ['s3.put.content-md5'],
  ],
  [
    's3-delete-objects-quiet-ignored',
    'DeleteObjects ignores <Quiet>true</Quiet>: every deleted key is listed',
    ['s3.delete.quiet'],
  ],
  [
    's3-delete-objects-quiet-present',
    'DeleteObjects is quiet whenever the request has a Quiet element, <Quiet>false</Quiet> too',
    ['s3.delete.quiet'],
  ],
  [
    's3-delete-objects-missing-not-listed',
    'DeleteObjects lists as deleted only the keys that existed; a key that was not there is left out',
    ['s3.delete.quiet'],
  ],
  [
    's3-cors-allow-origin-star',
    "A CORS answer granted by a rule listing origins gives Access-Control-Allow-Origin * instead of the request's origin",
    ['s3.cors.allow-origin-echo'],
  ],
  [
    's3-cors-allow-origin-as-written',
    'A CORS answer gives as Access-Control-Allow-Origin the AllowedOrigin that matched as the rule writes it, a pattern (https://*.example.org) too',
    ['s3.cors.allow-origin-echo'],
  ],
  [
    's3-cors-wildcard-echoes-origin',
    "A CORS answer granted by a rule with AllowedOrigin * gives the request's origin instead of *",
    ['s3.cors.allow-origin-echo'],
  ],
  [
    's3-list-max-keys-echo-1000',
    'ListObjects and ListObjectsV2 answer MaxKeys 1000 whatever max-keys asked',
    ['s3.list.max-keys-echo'],
  ],
  [
    's3-list-max-keys-echo-plus-one',
    'ListObjects and ListObjectsV2 answer MaxKeys one more than max-keys asked (the keys fetched to tell whether more follow)',
    ['s3.list.max-keys-echo'],
  ],
  [
    's3-list-max-keys-echo-omitted',
    'ListObjects and ListObjectsV2 asked for max-keys answer without a MaxKeys element',
    ['s3.list.max-keys-echo'],
  ],
  [
    's3-expiration-not-rounded',
    "x-amz-expiration's expiry-date is the object's creation plus the rule's Days to the second, not rounded up to the next midnight UTC",
    ['s3.lifecycle.expiration-header'],
  ],
  [
    's3-expiration-prefix-ignored',
    "x-amz-expiration is answered for every object of a bucket with an Expiration rule, whatever the rule's prefix",
    ['s3.lifecycle.expiration-header'],
  ],
  [
    's3-expiration-disabled-rule-applied',
    'x-amz-expiration is answered for an object that only a Disabled rule covers',
    ['s3.lifecycle.expiration-header'],
  ],
  [
    's3-expiration-read-omitted',
    'PutObject answers x-amz-expiration, but GET and HEAD of the object leave it out',
    ['s3.lifecycle.expiration-header'],
  ],
  [
    's3-list-case-insensitive-order',
    'ListObjects and ListObjectsV2 order keys case-insensitively (Zebra after apple), not by their bytes',
    ['s3.list.key-order'],
  ],
  [
    's3-list-v1-locale-order',
    "ListObjects (V1) orders keys by the locale's collation (localeCompare: ~ before letters, café between cafe and cafz); ListObjectsV2 by their bytes",
    ['s3.list.key-order'],
  ],
  [
    's3-checksum-crc32-unverified',
    'x-amz-checksum-crc32 is stored without being verified (the SHA checksums are): a PutObject whose CRC32 does not match its body is stored',
    ['s3.checksum.crc32-mismatch'],
  ],
  [
    's3-checksum-crc32-invalid-request',
    'A PutObject whose x-amz-checksum-crc32 does not match its body is refused with 400 InvalidRequest, not BadDigest',
    ['s3.checksum.crc32-mismatch'],
  ],
  [
    's3-checksum-crc32-checked-after-store',
    'PutObject stores the object, then refuses an x-amz-checksum-crc32 that does not match it with 400 BadDigest',
    ['s3.checksum.crc32-mismatch'],
  ],
  [
    's3-cond-missing-if-match-412',
    'GET and HEAD of a missing key with If-Match answer 412 PreconditionFailed (RFC 9110: no current representation), not 404',
    ['s3.cond.missing-key-404'],
  ],
  [
    's3-cond-missing-if-none-match-304',
    'GET and HEAD of a missing key with an If-None-Match ETag answer 304 Not Modified, not 404 (If-None-Match * is 404)',
    ['s3.cond.missing-key-404'],
  ],
  [
    's3-cond-missing-if-match-star-412',
    'GET and HEAD of a missing key with If-Match * answer 412 PreconditionFailed (* matches no object); an ETag there answers 404',
    ['s3.cond.missing-key-404'],
  ],
  [
    's3-list-fetch-owner-ignored',
    'ListObjectsV2 gives no Owner even when fetch-owner=true asks for it',
    ['s3.list.fetch-owner'],
  ],
  [
    's3-list-fetch-owner-present-means-true',
    'ListObjectsV2 gives each key its Owner whenever fetch-owner is sent, fetch-owner=false too',
    ['s3.list.fetch-owner'],
  ],
  [
    's3-list-fetch-owner-display-name-only',
    'ListObjectsV2 with fetch-owner=true gives each Owner a DisplayName but no ID',
    ['s3.list.fetch-owner'],
  ],
  [
    's3-list-start-after-not-echoed',
    'ListObjectsV2 without encoding-type answers no StartAfter, whatever start-after it was sent',
    ['s3.list.start-after-echo'],
  ],
  [
    's3-list-start-after-echo-encoded',
    'ListObjectsV2 answers StartAfter URL-encoded though encoding-type was not asked',
    ['s3.list.start-after-echo'],
  ],
  [
    's3-delete-objects-empty-accepted',
    'DeleteObjects whose Delete names no Object answers 200 with an empty DeleteResult',
    ['s3.delete.empty-malformed-xml'],
  ],
  [
    's3-delete-objects-empty-invalid-request',
    'DeleteObjects whose Delete names no Object is refused with 400 InvalidRequest, not MalformedXML',
    ['s3.delete.empty-malformed-xml'],
  ],
];

export const s3Faults: FaultDef[] = CATALOG.map(([name, description, breaks]) => ({
  name,
  area: 's3',
  description,
  breaks,
}));
