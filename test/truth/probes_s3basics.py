"""What ceph/s3-tests found the reference getting wrong, what remains near it, and what common clients
read from an answer: server-side encryption on every write and read that reports it (bucket default,
copies, multipart), SSE headers where they do not belong, aws-chunked in an ordinary Content-Encoding,
lifecycle rule IDs and Status, single-part ETags, Last-Modified, listed Size / ETag / LastModified,
date conditions and response-* overrides. Each probe decides one clause, Amazon S3's behaviour where
SPEC is silent (SPEC behaviour 6 where it decides: SSE-KMS is refused with 501)."""

from __future__ import annotations

import base64
import calendar
import email.utils
import hashlib
import re
import time
from xml.sax.saxutils import escape

from probes_bucket import algorithms, put_encryption
from probes_multipart import complete, completed, create_upload, st, upload_part
from truth import Answer, Target, Unjudgeable, accepted, bucket_gone, child_text, judge, local, probe

SSE = "x-amz-server-side-encryption"
AES = {SSE: "AES256"}
HTTP_DATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                       r"\d{4} \d\d:\d\d:\d\d GMT$")
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
EARLIER = "Sat, 01 Jan 2000 00:00:00 GMT"


def md5q(body: bytes) -> str:
    return f'"{hashlib.md5(body).hexdigest()}"'


def sse_of(a: Answer) -> str:
    return f"{st(a)} {SSE} {a.header(SSE)!r}"


def default_encryption(t: Target, b: str) -> None:
    a = put_encryption(t, b, "AES256")
    if a.status != 200:
        raise Unjudgeable(f"PutBucketEncryption AES256 answered {st(a)}")


def abort(t: Target, b: str, key: str, uid: str) -> None:
    t.request("DELETE", b, key, query={"uploadId": uid})


@probe("s3.sse.bucket-default")
def _(t: Target):
    b = t.new_bucket("sse")
    default_encryption(t, b)
    body = b"encrypted-by-default"
    put = t.request("PUT", b, "by-default.txt", body=body)
    head = t.request("HEAD", b, "by-default.txt")
    get = t.request("GET", b, "by-default.txt")
    ok = all(a.status == 200 and a.header(SSE) == "AES256" for a in (put, head, get)) and get.body == body
    return judge(ok, f"after PutBucketEncryption AES256, PutObject without {SSE}: {sse_of(put)}; "
                     f"HEAD {sse_of(head)}; GET {sse_of(get)}, body {get.body[:40]!r}")


@probe("s3.sse.copy")
def _(t: Target):
    b = t.new_bucket("sse")
    body = b"copied-encrypted"
    t.put(b, "source.txt", body)
    source = {"x-amz-copy-source": f"/{b}/source.txt"}
    copy = t.request("PUT", b, "copy.txt", headers={**source, **AES})
    head = t.request("HEAD", b, "copy.txt")
    get = t.request("GET", b, "copy.txt")
    copied = (copy.status == 200 and copy.root != "Error" and all(a.header(SSE) == "AES256" for a in (copy, head, get))
              and head.status == 200 and get.status == 200 and get.body == body)
    try:
        uid = create_upload(t, b, "part-copied.bin", headers=AES)
    except Unjudgeable as e:
        # No upload to copy a part into: the CopyObject half still decides a departure.
        if not copied:
            return judge(False, f"CopyObject with {SSE} AES256: {sse_of(copy)}; HEAD of the copy {sse_of(head)}; "
                                f"GET {sse_of(get)} ({e}, so UploadPartCopy was not tried)")
        raise
    try:
        part = t.request("PUT", b, "part-copied.bin", query={"partNumber": "1", "uploadId": uid}, headers=source)
    finally:
        abort(t, b, "part-copied.bin", uid)
    ok = copied and part.status == 200 and part.root != "Error" and part.header(SSE) == "AES256"
    return judge(ok, f"CopyObject with {SSE} AES256: {sse_of(copy)}; HEAD of the copy {sse_of(head)}; "
                     f"GET {sse_of(get)}; UploadPartCopy into an AES256 upload: {sse_of(part)}")


@probe("s3.sse.multipart")
def _(t: Target):
    b = t.new_bucket("sse")
    body = b"one-part-encrypted"
    uid = create_upload(t, b, "assembled.bin", headers=AES)
    part = upload_part(t, b, "assembled.bin", uid, 1, body)
    done = complete(t, b, "assembled.bin", uid, [(1, part.header("etag") or md5q(body))])
    if not completed(done):
        abort(t, b, "assembled.bin", uid)
        if part.header(SSE) != "AES256":
            # UploadPart's answer already decides, whatever became of the upload.
            return judge(False, f"upload created with {SSE} AES256: UploadPart {sse_of(part)}; Complete {st(done)}")
        raise Unjudgeable(f"CompleteMultipartUpload answered {st(done)}")
    head = t.request("HEAD", b, "assembled.bin")
    get = t.request("GET", b, "assembled.bin")
    ok = all(a.header(SSE) == "AES256" for a in (part, done, head, get)) and get.status == 200 and get.body == body
    return judge(ok, f"upload created with {SSE} AES256: UploadPart {sse_of(part)}; Complete {sse_of(done)}; "
                     f"HEAD {sse_of(head)}; GET {sse_of(get)}")


@probe("s3.sse.request-headers-refused")
def _(t: Target):
    b = t.new_bucket("sse")
    # A plain object: that AES256 writes are taken is s3.sse.aes256's, not a precondition here.
    t.put(b, "twin.txt", b"read-me-plainly")
    for method in ("GET", "HEAD"):
        plain = t.request(method, b, "twin.txt")
        if plain.status != 200:
            raise Unjudgeable(f"a plain {method} of the object answered {st(plain)}")
    key_id = {"x-amz-server-side-encryption-aws-kms-key-id": "arn:aws:kms:us-east-1:111122223333:key/truth"}
    kms = t.request("PUT", b, "kms-key.txt", headers=key_id, body=b"secret")
    stored = t.request("HEAD", b, "kms-key.txt")
    get = t.request("GET", b, "twin.txt", headers=AES)
    head = t.request("HEAD", b, "twin.txt", headers=AES)
    ok = (kms.status == 501 and kms.code == "NotImplemented" and stored.status == 404
          and get.status == 400 and get.code == "InvalidArgument" and head.status == 400)
    return judge(ok, f"PutObject with only a KMS key id: {st(kms)}, HEAD of its key then {stored.status}; "
                     f"GET with {SSE} AES256: {st(get)}; HEAD with it: {head.status} (plain GET and HEAD: 200)")


@probe("s3.encryption.delete-resets-default")
def _(t: Target):
    b = t.new_bucket("enc")
    default_encryption(t, b)
    deleted = t.request("DELETE", b, query={"encryption": ""})
    if not 200 <= deleted.status < 300:
        raise Unjudgeable(f"DeleteBucketEncryption answered {st(deleted)}")
    gone = bucket_gone(t, b)
    if gone:
        return judge(False, f"DeleteBucketEncryption answered {st(deleted)}, but {gone}: carried out as DeleteBucket")
    got = t.request("GET", b, query={"encryption": ""})
    put = t.request("PUT", b, "after-delete.txt", body=b"still-encrypted")
    ok = got.status == 200 and algorithms(got) == ["AES256"] and put.status == 200 and put.header(SSE) == "AES256"
    return judge(ok, f"after DeleteBucketEncryption ({deleted.status}): GetBucketEncryption {st(got)}, SSEAlgorithm "
                     f"{algorithms(got)}; PutObject {sse_of(put)}")


@probe("s3.put.aws-chunked-not-streaming")
def _(t: Target):
    b = t.new_bucket("enc")
    t.put(b, "twin.bin", b"plain-bytes-not-chunks", headers={"content-encoding": "gzip"})
    ok, seen = True, []
    for i, (sent, kept) in enumerate([("gzip, aws-chunked", "gzip"), ("aws-chunked, gzip", "gzip"),
                                      ("aws-chunked", None)]):
        body = f"plain-bytes-{i}-not-chunks".encode()
        put = t.request("PUT", b, f"c{i}.bin", headers={"content-encoding": sent}, body=body)
        get = t.request("GET", b, f"c{i}.bin")
        good = put.status == 200 and get.status == 200 and get.body == body and get.header("content-encoding") == kept
        ok &= good
        seen.append(f"Content-Encoding {sent!r} (x-amz-content-sha256 of the body): PUT {st(put)}, GET {get.status} "
                    f"Content-Encoding {get.header('content-encoding')!r}, body {'as sent' if get.body == body else get.body[:40]!r}")
    return judge(ok, "; ".join(seen))


def lifecycle(t: Target, b: str, rules: str) -> Answer:
    body = f"<LifecycleConfiguration>{rules}</LifecycleConfiguration>".encode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return t.request("PUT", b, query={"lifecycle": ""}, body=body, headers={"Content-MD5": md5})


def lc_rule(prefix: str, days: int, status: str = "Enabled", rid: str | None = None) -> str:
    named = f"<ID>{escape(rid)}</ID>" if rid is not None else ""
    return (f"<Rule>{named}<Filter><Prefix>{prefix}</Prefix></Filter><Status>{status}</Status>"
            f"<Expiration><Days>{days}</Days></Expiration></Rule>")


def rules_read(a: Answer) -> list[tuple[str | None, str | None, str | None]]:
    """(ID, prefix, Status) of each rule of a GetBucketLifecycleConfiguration answer."""
    out = []
    for r in a.all("Rule"):
        filt = next((c for c in r if local(c.tag) == "Filter"), None)
        prefix = child_text(filt, "Prefix") if filt is not None else child_text(r, "Prefix")
        out.append((child_text(r, "ID"), prefix, child_text(r, "Status")))
    return out


@probe("s3.lifecycle.rule-id-assigned")
def _(t: Target):
    b = t.new_bucket("lc")
    put = lifecycle(t, b, lc_rule("first/", 31) + lc_rule("second/", 120) + lc_rule("third/", 7, "Disabled", "named"))
    if put.status != 200:
        raise Unjudgeable(f"PutBucketLifecycleConfiguration of rules without an ID answered {st(put)}")
    got = t.request("GET", b, query={"lifecycle": ""})
    rules = rules_read(got)
    ids = [r[0] for r in rules]
    by_prefix = {r[1]: r[0] for r in rules}
    ok = (got.status == 200 and len(rules) == 3 and all(i and i.strip() and len(i) <= 255 for i in ids)
          and len(set(ids)) == 3 and by_prefix.get("third/") == "named")
    return judge(ok, f"rules first/ and second/ put without an ID, third/ with ID 'named': "
                     f"GetBucketLifecycleConfiguration {st(got)}, (ID, prefix, Status) {rules}")


@probe("s3.lifecycle.status-malformed-xml")
def _(t: Target):
    b = t.new_bucket("lc")
    twin = lifecycle(t, b, lc_rule("twin/", 2, "Enabled", "twin"))
    ok, seen, carried = True, [f"Status Enabled: {st(twin)}"], []
    for status in ("enabled", "disabled"):
        a = lifecycle(t, b, lc_rule("lower/", 2, status, "lower"))
        ok &= a.status == 400 and a.code == "MalformedXML"
        seen.append(f"Status {status!r}: {st(a)}")
        # Accepted, or refused otherwise than 400 MalformedXML, departs whatever the valid twin got.
        if accepted(a) or not (a.status == 400 and a.code == "MalformedXML"):
            carried.append(f"Status {status!r}: {st(a)}")
    if twin.status != 200:
        # Status Enabled refused too, a refusal with 400 MalformedXML proves nothing; a lower-case
        # Status accepted, or refused otherwise, departs.
        if carried:
            return judge(False, "; ".join(carried) + f" (Status Enabled: {st(twin)})")
        raise Unjudgeable(f"PutBucketLifecycleConfiguration with Status Enabled answered {st(twin)}; " + "; ".join(seen[1:]))
    got = t.request("GET", b, query={"lifecycle": ""})
    kept = rules_read(got)
    ok &= kept == [("twin", "twin/", "Enabled")]
    seen.append(f"GetBucketLifecycleConfiguration afterwards: {st(got)}, rules {kept}")
    return judge(ok, "; ".join(seen))


@probe("s3.object.etag-md5")
def _(t: Target):
    b = t.new_bucket("etag")
    ok, seen = True, []
    for key, body in (("etag.txt", b"etag-me"), ("empty.txt", b"")):
        put = t.request("PUT", b, key, body=body)
        want = md5q(body)
        reads = [(m, t.request(m, b, key)) for m in ("HEAD", "GET")]
        good = put.status == 200 and put.header("etag") == want and all(
            a.status == 200 and a.header("etag") == want for _, a in reads)
        ok &= good
        seen.append(f"{key} ({len(body)} bytes, MD5 {want}): PUT {st(put)} ETag {put.header('etag')!r}, "
                    + ", ".join(f"{m} {a.status} ETag {a.header('etag')!r}" for m, a in reads))
    return judge(ok, "; ".join(seen))


@probe("s3.object.last-modified")
def _(t: Target):
    b = t.new_bucket("lm")
    t.put(b, "dated.txt", b"first write")
    head = t.request("HEAD", b, "dated.txt")
    get = t.request("GET", b, "dated.txt")
    first = head.header("last-modified") or ""
    time.sleep(1.1)
    t.put(b, "dated.txt", b"second write")
    after = t.request("HEAD", b, "dated.txt")
    later = after.header("last-modified") or ""
    dates = [first, get.header("last-modified") or "", later]
    ok = (head.status == get.status == after.status == 200 and all(HTTP_DATE.match(d) for d in dates)
          and later != first)
    return judge(ok, f"HEAD Last-Modified {first!r}, GET {dates[1]!r}; after an overwrite a second later, "
                     f"HEAD {later!r}")


def http_second(value: str | None) -> int | None:
    try:
        return int(email.utils.parsedate_to_datetime(value or "").timestamp())
    except (TypeError, ValueError):
        return None


def iso_second(value: str | None) -> int | None:
    if not value or not ISO_UTC.match(value):
        return None
    return calendar.timegm(time.strptime(value[:19], "%Y-%m-%dT%H:%M:%S"))


@probe("s3.list.object-attributes")
def _(t: Target):
    b = t.new_bucket("ls")
    bodies = {"a-listed.txt": b"listed-nine", "b-empty.txt": b"", "c-copy.txt": b"listed-nine"}
    t.put(b, "a-listed.txt", bodies["a-listed.txt"])
    t.put(b, "b-empty.txt", b"")
    copy = t.request("PUT", b, "c-copy.txt", headers={"x-amz-copy-source": f"/{b}/a-listed.txt"})
    if copy.status != 200:
        # The copy only adds a key written another way; without it the other keys are judged.
        del bodies["c-copy.txt"]
    # Listed a second or more after the writes: a listing that gives its own time is seen.
    time.sleep(1.1)
    heads = {k: t.request("HEAD", b, k) for k in bodies}
    ok, seen = True, []
    for v2 in (True, False):
        a = t.request("GET", b, query={"list-type": "2"} if v2 else None)
        entries = {child_text(c, "Key"): c for c in a.all("Contents")}
        for key, body in bodies.items():
            c = entries.get(key)
            size, etag, modified = ((child_text(c, "Size"), child_text(c, "ETag"), child_text(c, "LastModified"))
                                    if c is not None else (None, None, None))
            head = heads[key]
            # The same tag as HEAD's, quoted or not: quoting is s3.object.etag-md5's statement.
            same_etag = etag is not None and etag.strip('"') == (head.header("etag") or "").strip('"')
            good = (a.status == 200 and size == str(len(body)) and same_etag
                    and iso_second(modified) is not None and iso_second(modified) == http_second(head.header("last-modified")))
            ok &= good
            if not good:
                seen.append(f"{'ListObjectsV2' if v2 else 'ListObjects'} {key}: Size {size!r} (bytes {len(body)}), "
                            f"ETag {etag!r} (HEAD {head.header('etag')!r}), LastModified {modified!r} "
                            f"(HEAD {head.header('last-modified')!r})")
    return judge(ok, "; ".join(seen) or "ListObjectsV2 and ListObjects give each key its byte count, HEAD's ETag "
                                        "and an ISO 8601 UTC LastModified of HEAD's second")


@probe("s3.cond.get-dates")
def _(t: Target):
    b = t.new_bucket("cond")
    t.put(b, "dated.txt", b"dated-bytes")
    head = t.request("HEAD", b, "dated.txt")
    modified, etag = head.header("last-modified"), head.header("etag")
    if head.status != 200 or not modified or not etag:
        raise Unjudgeable(f"HEAD of the object answered {head.status}, Last-Modified {modified!r}, ETag {etag!r}")
    ok, seen = True, []
    for method, headers, want in [
        ("GET", {"If-Modified-Since": EARLIER}, 200),
        ("GET", {"If-Modified-Since": modified}, 304),
        ("HEAD", {"If-Modified-Since": modified}, 304),
        ("HEAD", {"If-Modified-Since": EARLIER}, 200),
        ("GET", {"If-Unmodified-Since": modified}, 200),
        ("GET", {"If-Unmodified-Since": EARLIER}, 412),
        ("HEAD", {"If-Unmodified-Since": EARLIER}, 412),
        ("GET", {"If-Match": etag, "If-Unmodified-Since": EARLIER}, 200),
    ]:
        a = t.request(method, b, "dated.txt", headers=headers)
        good = a.status == want and (want != 200 or method == "HEAD" or a.body == b"dated-bytes")
        ok &= good
        shown = ", ".join(f"{k}: {'<Last-Modified>' if v == modified else '<ETag>' if v == etag else v}"
                          for k, v in headers.items())
        seen.append(f"{method} {shown} -> {a.status} (want {want})")
    return judge(ok, "; ".join(seen) + f" (Last-Modified {modified})")


OVERRIDES = {
    "response-content-type": ("content-type", "application/pdf"),
    "response-content-disposition": ("content-disposition", 'attachment; filename="report.pdf"'),
    "response-cache-control": ("cache-control", "no-store"),
    "response-content-language": ("content-language", "fr-CA"),
    "response-expires": ("expires", "Thu, 01 Jan 2037 00:00:00 GMT"),
    "response-content-encoding": ("content-encoding", "identity"),
}


@probe("s3.get.response-overrides")
def _(t: Target):
    b = t.new_bucket("over")
    body = b"override-me"
    t.put(b, "report.txt", body, headers={"content-type": "text/plain", "cache-control": "max-age=60"})
    signed = t.request("GET", b, "report.txt", query={p: v for p, (_, v) in OVERRIDES.items()})
    wrong = {h: signed.header(h) for h, v in OVERRIDES.values() if signed.header(h) != v}
    # Presigned too, with every parameter the clause names (other values than the signed GET's).
    presigned = {"response-content-type": ("content-type", "application/json"),
                 "response-content-disposition": ("content-disposition", 'attachment; filename="download.txt"'),
                 "response-cache-control": ("cache-control", "private, max-age=0"),
                 "response-content-language": ("content-language", "de-CH"),
                 "response-expires": ("expires", "Fri, 01 Jan 2038 00:00:00 GMT"),
                 "response-content-encoding": ("content-encoding", "identity")}
    url = t.presign("GET", b, "report.txt", query={p: v for p, (_, v) in presigned.items()})
    pre = t.get_url(url)
    pre_wrong = {h: pre.header(h) for h, v in presigned.values() if pre.header(h) != v}
    own = t.request("HEAD", b, "report.txt")
    own_wrong = {h: own.header(h) for h, v in (("content-type", "text/plain"), ("cache-control", "max-age=60"),
                                               ("content-disposition", None)) if own.header(h) != v}
    ok = (signed.status == 200 and signed.body == body and not wrong and pre.status == 200 and pre.body == body
          and not pre_wrong and own.status == 200 and not own_wrong)
    return judge(ok, f"signed GET with six response-* parameters: {signed.status}, "
                     f"{'every header as given' if not wrong else f'differing {wrong}'}; presigned GET with six: "
                     f"{pre.status}, {'as given' if not pre_wrong else f'differing {pre_wrong}'}; HEAD afterwards: "
                     f"{own.status}, {'the object keeps its own' if not own_wrong else f'differing {own_wrong}'}")
