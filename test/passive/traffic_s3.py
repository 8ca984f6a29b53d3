"""Everyday S3 traffic from boto3, for the passive judge to read (test/passive-departures-s3.test.ts).

An application's calls, nothing aimed at a clause: a bucket made, objects written (one with
AES256, one empty, one typed under a key without an extension), read whole, by range and on
condition, listed in V2 and V1 pages by their cursors, a missing key read, objects deleted.
Every answer is taken as it comes: a server that refuses a call is the judge's to read, not this
script's, so errors are printed and the traffic goes on.

Usage: traffic_s3.py ENDPOINT ACCESS_KEY SECRET REGION BUCKET, or traffic_s3.py --serve (see serve).
"""

import base64
import datetime
import hashlib
import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.handlers import set_list_objects_encoding_type_url

OTHER = '"' + "0" * 32 + '"'
DOCS = ["docs/a.txt", "docs/b.txt", "docs/c.txt", "docs/d.txt"]
# Names whose byte order differs from a locale's order, and (in a bucket of their own, listed by
# ListObjects alone) from a case-insensitive one.
CASED = ["Zebra", "apple"]
NAMES = [ "names/banana~", "names/bananas", "names/cafe", "names/caf\u00e9", "names/cafz"]


def client(endpoint, key, secret, region):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        region_name=region,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


def call(what, fn, **kwargs):
    """One call; its answer, or None where the server refused it (printed)."""
    try:
        return fn(**kwargs)
    except ClientError as err:
        print(f"{what}: {err.response.get('Error', {}).get('Code')}", file=sys.stderr)
        return None


def write(s3, bucket):
    for key in DOCS:
        s3.put_object(Bucket=bucket, Key=key, Body=f"text of {key}".encode(), ContentType="text/plain")
    s3.put_object(Bucket=bucket, Key="notes", Body=b"typed, without an extension", ContentType="text/markdown")
    s3.put_object(Bucket=bucket, Key="img/x", Body=bytes(range(256)) * 4)
    s3.put_object(Bucket=bucket, Key="empty", Body=b"")
    for key in NAMES:
        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
    call("PutObject AES256", s3.put_object, Bucket=bucket, Key="secret", Body=b"kept at rest", ServerSideEncryption="AES256")
    s3.put_object(Bucket=bucket, Key="meta/tagged.txt", Body=b"with metadata", Metadata={"owner": "ops", "purpose": "passive"})


def read(s3, bucket):
    for key in ["notes", "img/x", "empty", "secret", "docs/a.txt", "meta/tagged.txt"]:
        call(f"HeadObject {key}", s3.head_object, Bucket=bucket, Key=key)
        got = call(f"GetObject {key}", s3.get_object, Bucket=bucket, Key=key)
        if got:
            got["Body"].read()
    got = call("GetObject range", s3.get_object, Bucket=bucket, Key="img/x", Range="bytes=0-9")
    if got:
        got["Body"].read()


def conditionals(s3, bucket):
    head = s3.head_object(Bucket=bucket, Key="notes")
    etag = head["ETag"]
    for method in (s3.get_object, s3.head_object):
        for cond in ({"IfMatch": etag}, {"IfMatch": OTHER}, {"IfNoneMatch": etag}, {"IfNoneMatch": OTHER}):
            got = call(f"{method.__name__} {cond}", method, Bucket=bucket, Key="notes", **cond)
            if got and "Body" in got:
                got["Body"].read()
    # Both ETag conditions on a GET: If-Match decides first, then If-None-Match.
    for cond in ({"IfMatch": etag, "IfNoneMatch": etag}, {"IfMatch": etag, "IfNoneMatch": OTHER},
                 {"IfMatch": OTHER, "IfNoneMatch": etag}, {"IfMatch": OTHER, "IfNoneMatch": OTHER}):
        got = call(f"get_object {cond}", s3.get_object, Bucket=bucket, Key="notes", **cond)
        if got and "Body" in got:
            got["Body"].read()
    # Date conditions alone: at Last-Modified and a day before it.
    modified = head["LastModified"]
    earlier = modified - datetime.timedelta(days=1)
    for method in (s3.get_object, s3.head_object):
        for cond in ({"IfModifiedSince": modified}, {"IfModifiedSince": earlier},
                     {"IfUnmodifiedSince": modified}, {"IfUnmodifiedSince": earlier}):
            got = call(f"{method.__name__} {cond}", method, Bucket=bucket, Key="notes", **cond)
            if got and "Body" in got:
                got["Body"].read()


def list_v2(s3, bucket, **params):
    token = None
    for _ in range(10):
        extra = {"ContinuationToken": token} if token else {}
        page = call("ListObjectsV2", s3.list_objects_v2, Bucket=bucket, **params, **extra)
        token = page and page.get("NextContinuationToken")
        if not token:
            return


def list_v1(s3, bucket, **params):
    marker = None
    for _ in range(10):
        extra = {"Marker": marker} if marker else {}
        page = call("ListObjects", s3.list_objects, Bucket=bucket, **params, **extra)
        if not page:
            return
        contents = page.get("Contents") or []
        marker = page.get("NextMarker") or (contents[-1]["Key"] if contents else None)
        if not page.get("IsTruncated") or not marker:
            return


def listings(s3, bucket):
    list_v2(s3, bucket)
    list_v2(s3, bucket, Prefix="docs/", MaxKeys=2)
    list_v1(s3, bucket)
    list_v1(s3, bucket, Prefix="docs/", MaxKeys=2)
    list_v2(s3, bucket, Delimiter="/")
    list_v2(s3, bucket, Prefix="names/", FetchOwner=True)
    list_v2(s3, bucket, Prefix="names/", FetchOwner=False)
    list_v2(s3, bucket, Prefix="names/", MaxKeys=50)
    list_v1(s3, bucket, Prefix="names/")
    s3.create_bucket(Bucket=bucket + "-cased")
    for key in CASED:
        s3.put_object(Bucket=bucket + "-cased", Key=key, Body=key.encode())
    list_v1(s3, bucket + "-cased")


def plain_listings(s3, bucket):
    """Listings without the encoding-type=url boto3 adds by default, as other clients send them."""
    s3.meta.events.unregister("before-parameter-build.s3.ListObjectsV2", set_list_objects_encoding_type_url)
    s3.meta.events.unregister("before-parameter-build.s3.ListObjects", set_list_objects_encoding_type_url)
    list_v2(s3, bucket, Prefix="names/", StartAfter="names/caf\u00e9 +")
    list_v1(s3, bucket, Prefix="names/", MaxKeys=50)


def slips(s3, bucket):
    """An application's slips: a CRC32 of other bytes than the body, a batch delete of no keys."""
    call("PutObject wrong CRC32", s3.put_object, Bucket=bucket, Key="slip.txt", Body=b"sent-corrupted",
         ChecksumAlgorithm="CRC32", ChecksumCRC32="jA8cDQ==")
    call("DeleteObjects of none", s3.delete_objects, Bucket=bucket, Delete={"Objects": [], "Quiet": True})


def bucket_default(s3, bucket):
    """A bucket given AES256 by default, an object written into it asking for nothing, read back."""
    sealed = bucket + "-sealed"
    s3.create_bucket(Bucket=sealed)
    rule = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    call("PutBucketEncryption", s3.put_bucket_encryption, Bucket=sealed,
         ServerSideEncryptionConfiguration={"Rules": [rule]})
    call("PutObject under the default", s3.put_object, Bucket=sealed, Key="sealed.txt", Body=b"sealed by default")
    call("HeadObject under the default", s3.head_object, Bucket=sealed, Key="sealed.txt")
    got = call("GetObject under the default", s3.get_object, Bucket=sealed, Key="sealed.txt")
    if got:
        got["Body"].read()


def listed_uploads(s3, bucket):
    """An upload under a key URL encoding changes, listed with encoding-type url, then abandoned."""
    key = "uploads/caf\u00e9 1.txt"
    made = call("CreateMultipartUpload", s3.create_multipart_upload, Bucket=bucket, Key=key)
    call("ListMultipartUploads url", s3.list_multipart_uploads, Bucket=bucket, EncodingType="url")
    if made:
        call("AbortMultipartUpload", s3.abort_multipart_upload, Bucket=bucket, Key=key, UploadId=made["UploadId"])


def described_upload(s3, bucket):
    """An upload created with content headers and metadata, completed, and the object read back."""
    key = "reports/q1.csv.gz"
    made = call("CreateMultipartUpload described", s3.create_multipart_upload, Bucket=bucket, Key=key,
                ContentType="text/csv", CacheControl="max-age=60", ContentDisposition='attachment; filename="q1.csv"',
                ContentEncoding="deflate, gzip", ContentLanguage="en-GB", Expires=datetime.datetime(2031, 1, 2, 3, 4, 5),
                Metadata={"team": "finance", "quarter": "q1"})
    if not made:
        return
    upload = {"Bucket": bucket, "Key": key, "UploadId": made["UploadId"]}
    part = call("UploadPart described", s3.upload_part, PartNumber=1, Body=b"region,total\n", **upload)
    if not part:
        return
    parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    call("CompleteMultipartUpload described", s3.complete_multipart_upload, MultipartUpload=parts, **upload)
    call("HeadObject described", s3.head_object, Bucket=bucket, Key=key)
    got = call("GetObject described", s3.get_object, Bucket=bucket, Key=key)
    if got:
        got["Body"].read()


def checksummed_upload(s3, bucket):
    """An upload created with SHA-256, its part sent with its own, completed with the composite, read back.

    One part: a part before the last must be 5 MiB, more than the proxy keeps of a request body.
    """
    key = "backups/db.dump"
    made = call("CreateMultipartUpload SHA256", s3.create_multipart_upload, Bucket=bucket, Key=key,
                ChecksumAlgorithm="SHA256")
    if not made:
        return
    upload = {"Bucket": bucket, "Key": key, "UploadId": made["UploadId"]}
    body = b"the only part"
    part = call("UploadPart SHA256", s3.upload_part, PartNumber=1, Body=body, ChecksumAlgorithm="SHA256", **upload)
    if not part:
        return
    parts = [{"PartNumber": 1, "ETag": part["ETag"], "ChecksumSHA256": part.get("ChecksumSHA256", "")}]
    # The composite: SHA-256 over the parts' binary SHA-256s, base64, then the count of parts.
    composite = base64.b64encode(hashlib.sha256(hashlib.sha256(body).digest()).digest()).decode() + "-1"
    call("CompleteMultipartUpload SHA256", s3.complete_multipart_upload, MultipartUpload={"Parts": parts},
         ChecksumSHA256=composite, **upload)
    call("HeadObject SHA256", s3.head_object, Bucket=bucket, Key=key, ChecksumMode="ENABLED")


def chunked_names(s3, bucket):
    """Ordinary PutObjects naming aws-chunked in Content-Encoding, as some clients do, read back."""
    for key, coding in (("coded/gzip-chunked.bin", "gzip, aws-chunked"), ("coded/chunked-gzip.bin", "aws-chunked, gzip"),
                        ("coded/chunked.bin", "aws-chunked")):
        call(f"PutObject {coding}", s3.put_object, Bucket=bucket, Key=key, Body=b"plain bytes, no chunks", ContentEncoding=coding)
        call(f"HeadObject {coding}", s3.head_object, Bucket=bucket, Key=key)
        got = call(f"GetObject {coding}", s3.get_object, Bucket=bucket, Key=key)
        if got:
            got["Body"].read()


def copies_onto_themselves(s3, bucket):
    """An object copied onto itself, once to change its metadata (REPLACE), once by mistake (no directive)."""
    key = "self/caf\u00e9 copy.txt"
    source = "/" + bucket + "/" + key
    s3.put_object(Bucket=bucket, Key=key, Body=b"copied onto itself", Metadata={"state": "before"})
    call("CopyObject onto itself REPLACE", s3.copy_object, Bucket=bucket, Key=key, CopySource=source,
         MetadataDirective="REPLACE", Metadata={"state": "after"})
    call("CopyObject onto itself", s3.copy_object, Bucket=bucket, Key=key, CopySource=source)


def missing_and_deletes(s3, bucket):
    call("GetObject missing", s3.get_object, Bucket=bucket, Key="docs/missing.txt")
    call("HeadObject missing", s3.head_object, Bucket=bucket, Key="docs/missing.txt")
    s3.delete_object(Bucket=bucket, Key="docs/d.txt")
    s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "empty"}]})
    list_v2(s3, bucket, Prefix="docs/")


def traffic(endpoint, key, secret, region, bucket):
    s3 = client(endpoint, key, secret, region)
    s3.create_bucket(Bucket=bucket)
    write(s3, bucket)
    read(s3, bucket)
    conditionals(s3, bucket)
    listings(s3, bucket)
    plain_listings(s3, bucket)
    slips(s3, bucket)
    bucket_default(s3, bucket)
    listed_uploads(s3, bucket)
    described_upload(s3, bucket)
    checksummed_upload(s3, bucket)
    chunked_names(s3, bucket)
    copies_onto_themselves(s3, bucket)
    missing_and_deletes(s3, bucket)


def serve():
    """One traffic per line of stdin (a JSON array of the five arguments), each ended by a line on
    stdout saying `done` or `failed: WHY`: boto3 is imported once for many servers."""
    for line in sys.stdin:
        try:
            traffic(*json.loads(line))
            print("done", flush=True)
        except Exception as err:  # the caller reports it; the next traffic still runs
            print(f"failed: {type(err).__name__}: {err}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        traffic(*sys.argv[1:6])
