"""CopyObject and UploadPartCopy (S3 behaviour 9): the leading slash of the source, NoSuchBucket and
NoSuchKey, the version headers, cf-copy-destination-* conditions, copies of multipart objects, and,
as Amazon S3 documents them, the metadata directive, the copy's ETag, copying onto itself and the
bytes of x-amz-copy-source-range."""

from __future__ import annotations

import hashlib
import random
import secrets

from truth import Answer, accepted, child_text, departs, judge, probe, Tally, Target, Unjudgeable, st

MIB = 1024 * 1024
OTHER = '"00000000000000000000000000000000"'


def copy(t: Target, bucket: str, key: str, source: str, headers: dict[str, str] | None = None) -> Answer:
    return t.request("PUT", bucket, key, headers={"x-amz-copy-source": source, **(headers or {})})




def result_etag(a: Answer) -> str | None:
    """The ETag of a CopyObjectResult / CopyPartResult, whatever the root element is called."""
    return a.text("ETag")


def bare(etag: str | None) -> str:
    return (etag or "").strip().strip('"')


def md5q(data: bytes) -> str:
    return f'"{hashlib.md5(data).hexdigest()}"'


def generated(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def create_upload(t: Target, bucket: str, key: str) -> str:
    a = t.request("POST", bucket, key, query={"uploads": ""})
    upload = a.text("UploadId")
    if a.status != 200 or not upload:
        raise Unjudgeable(f"CreateMultipartUpload {key} answered {st(a)}")
    return upload


def complete(t: Target, bucket: str, key: str, upload: str, parts: list[tuple[int, str]]) -> Answer:
    xml = "<CompleteMultipartUpload>" + "".join(
        f"<Part><PartNumber>{n}</PartNumber><ETag>{etag}</ETag></Part>" for n, etag in parts
    ) + "</CompleteMultipartUpload>"
    return t.request("POST", bucket, key, query={"uploadId": upload}, body=xml.encode())


def abort(t: Target, bucket: str, key: str, upload: str) -> None:
    t.request("DELETE", bucket, key, query={"uploadId": upload})


@probe("s3.copy.destination-conditional")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"source")
    d = None
    for key in ("dst-a", "dst-b", "dst-c"):
        d = t.put(b, key, b"destination").header("etag")
    if not d:
        raise Unjudgeable("PutObject answered no ETag")
    src = f"/{b}/src.txt"
    tally = Tally()
    # (failing header, value) on dst-a, and its valid twin (key, header, value) that must copy.
    cases = [
        (("cf-copy-destination-if-none-match", "*"), ("fresh", "cf-copy-destination-if-none-match", "*")),
        (("cf-copy-destination-if-match", OTHER), ("dst-b", "cf-copy-destination-if-match", d)),
        (("cf-copy-destination-if-none-match", d), ("dst-c", "cf-copy-destination-if-none-match", OTHER)),
    ]
    for (name, value), (tkey, tname, tvalue) in cases:
        shown = "<dst etag>" if value == d else value
        twin = copy(t, b, tkey, src, {tname: tvalue})
        copied = t.request("GET", b, tkey)
        # A copy whose destination condition holds goes ahead: that too is the clause.
        if not tally.check(twin.status == 200 and copied.body == b"source",
                           f"copy onto {tkey} with {tname}: {'<dst etag>' if tvalue == d else tvalue} answered "
                           f"{st(twin)}, {tkey} then {copied.body[:20]!r}"):
            continue
        a = copy(t, b, "dst-a", src, {name: value})
        got = t.request("GET", b, "dst-a")
        tally.check(a.status == 412 and got.body == b"destination",
                    f"copy onto an existing destination with {name}: {shown} answered {st(a)}, "
                    f"destination then {got.body[:20]!r}")
    return tally.outcome()


@probe("s3.copy.source-leading-slash")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"copy-me")
    twin = copy(t, b, "with-slash.txt", f"/{b}/src.txt")
    got = t.request("GET", b, "with-slash.txt")
    a = copy(t, b, "no-slash.txt", f"{b}/src.txt")
    h = t.request("HEAD", b, "no-slash.txt")
    if twin.status != 200 or got.body != b"copy-me":
        # With the twin refused a refusal proves nothing; a copy carried out without the slash departs.
        if accepted(a) or h.status == 200:
            return departs(f"with {b}/src.txt (no slash) the copy answered {st(a)}, HEAD of its destination "
                           f"then {h.status}; with /{b}/src.txt {st(twin)}, copy reads {got.body[:20]!r}")
        raise Unjudgeable(f"copy with source /{b}/src.txt answered {st(twin)}, copy reads {got.body[:20]!r}")
    return judge(400 <= a.status < 500 and h.status == 404,
                 f"with /{b}/src.txt the copy answered 200; with {b}/src.txt (no slash) {st(a)}, "
                 f"HEAD of its destination then {h.status}")


@probe("s3.copy.missing-destination-bucket")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"copy-me")
    twin = copy(t, b, "dst.txt", f"/{b}/src.txt")
    missing = f"truth-{secrets.token_hex(4)}-absent"
    a = copy(t, missing, "dst.txt", f"/{b}/src.txt")
    if twin.status != 200:
        if accepted(a):
            return departs(f"copy into missing bucket {missing} answered {st(a)} (into the existing one {st(twin)})")
        raise Unjudgeable(f"copy into the existing bucket answered {st(twin)}; into missing bucket {missing} {st(a)}")
    return judge(a.code == "NoSuchBucket",
                 f"copy into the existing bucket answered 200; into missing bucket {missing} {st(a)}")


@probe("s3.copy.missing-source")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"copy-me")
    twin = copy(t, b, "dst.txt", f"/{b}/src.txt")
    tally = Tally()
    for source, want in ((f"/{b}/absent.txt", "NoSuchKey"), (f"/{b}/dir/absent.txt", "NoSuchKey"),
                         (f"/truth-{secrets.token_hex(4)}-absent/src.txt", "NoSuchBucket")):
        a = copy(t, b, "dst2.txt", source)
        if twin.status != 200:
            tally.refused_anyway(a, f"copy from {source} answered {st(a)}", f"copy from an existing source {st(twin)}")
            continue
        tally.check(a.code == want, f"copy from {source} answered {st(a)} (want {want})")
    return tally.outcome()


@probe("s3.copy.version-headers")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"copy-me")
    tally = Tally()
    for dest, headers in (("dst.txt", {}), ("dst-replace.txt", {"x-amz-metadata-directive": "REPLACE"})):
        a = copy(t, b, dest, f"/{b}/src.txt", headers)
        if a.status != 200:
            tally.skip(f"copy to {dest} answered {st(a)}")
            continue
        v, cv = a.header("x-amz-version-id"), a.header("x-amz-copy-source-version-id")
        tally.check(bool(v) and bool(cv), f"copy to {dest}: x-amz-version-id {v!r}, x-amz-copy-source-version-id {cv!r}")
    return tally.outcome()


def multipart_object(t: Target, b: str, key: str) -> bytes:
    """A two-part object, 5 MiB and 10 bytes, completed; returns its bytes."""
    p1, p2 = generated(5 * MIB, 1), generated(10, 2)
    upload = create_upload(t, b, key)
    etags = []
    for n, part in ((1, p1), (2, p2)):
        a = t.request("PUT", b, key, query={"partNumber": str(n), "uploadId": upload}, body=part)
        if a.status != 200 or not a.header("etag"):
            abort(t, b, key, upload)
            raise Unjudgeable(f"UploadPart {n} answered {st(a)}")
        etags.append((n, a.header("etag")))
    c = complete(t, b, key, upload, etags)
    if c.status != 200 or c.root == "Error":
        abort(t, b, key, upload)
        raise Unjudgeable(f"CompleteMultipartUpload answered {st(c)}")
    return p1 + p2


@probe("s3.copy.multipart-object")
def _(t: Target):
    b = t.new_bucket()
    data = multipart_object(t, b, "big.bin")
    a = copy(t, b, "big-copy.bin", f"/{b}/big.bin")
    got = t.request("GET", b, "big-copy.bin")
    same = got.body == data
    return judge(a.status == 200 and a.root != "Error" and got.status == 200 and same,
                 f"copy of a 2-part object ({len(data)} bytes) answered {st(a)}; GET of the copy {got.status}, "
                 f"{len(got.body)} bytes, {'the same' if same else 'not the same'} bytes as the source")


@probe("s3.copy.upload-part-copy")
def _(t: Target):
    b = t.new_bucket()
    big = generated(5 * MIB + 10, 3)
    t.put(b, "big.bin", big)
    t.put(b, "small.bin", b"tail-bytes")
    upload = create_upload(t, b, "assembled.bin")
    p1 = t.request("PUT", b, "assembled.bin", query={"partNumber": "1", "uploadId": upload},
                   headers={"x-amz-copy-source": f"/{b}/big.bin", "x-amz-copy-source-range": f"bytes=0-{5 * MIB - 1}"})
    p2 = t.request("PUT", b, "assembled.bin", query={"partNumber": "2", "uploadId": upload},
                   headers={"x-amz-copy-source": f"/{b}/small.bin"})
    e1, e2 = result_etag(p1), result_etag(p2)
    if p1.status != 200 or p2.status != 200 or not e1 or not e2:
        abort(t, b, "assembled.bin", upload)
        return departs(f"UploadPartCopy of a 5 MiB range answered {st(p1)} (ETag {e1!r}), "
                       f"of a whole object {st(p2)} (ETag {e2!r})")
    c = complete(t, b, "assembled.bin", upload, [(1, e1), (2, e2)])
    if c.status != 200 or c.root == "Error":
        abort(t, b, "assembled.bin", upload)
        return departs(f"the copied parts answered 200, but CompleteMultipartUpload of them {st(c)}")
    got = t.request("GET", b, "assembled.bin")
    want = big[: 5 * MIB] + b"tail-bytes"
    return judge(got.body == want,
                 f"UploadPartCopy of bytes=0-{5 * MIB - 1} and of a whole 10-byte object answered 200 and 200, "
                 f"complete {c.status}; the object has {len(got.body)} bytes, "
                 f"{'exactly' if got.body == want else 'not'} the copied ones")


CONTENT = {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "max-age=3600, must-revalidate",
    "content-disposition": 'attachment; filename="report.txt"',
    "content-encoding": "gzip",
    "content-language": "de-CH",
    "expires": "Wed, 21 Oct 2037 07:28:00 GMT",
}
META = {"x-amz-meta-colour": "teal", "x-amz-meta-owner-id": "42"}


def described(a: Answer, names) -> dict[str, str | None]:
    return {n: a.header(n) for n in names}


@probe("s3.copy.metadata-directive")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "src.txt", b"described", headers={**CONTENT, **META})
    src = t.request("HEAD", b, "src.txt")
    want = {**CONTENT, **META}
    if described(src, want) != want:
        raise Unjudgeable(f"the source itself does not keep its headers: HEAD shows {described(src, want)}")
    tally = Tally()
    for dest, directive in (("default.txt", None), ("copy.txt", "COPY")):
        a = copy(t, b, dest, f"/{b}/src.txt", {"x-amz-metadata-directive": directive} if directive else {})
        h = t.request("HEAD", b, dest)
        got = described(h, want)
        diff = {k: v for k, v in got.items() if v != want[k]}
        tally.check(a.status == 200 and not diff,
                    f"copy with {directive or 'no directive'} answered {st(a)}; "
                    + (f"the copy differs: {diff}" if diff else "the copy has the source's headers and metadata"))
    replace = {"content-type": "application/json", "cache-control": "private", "x-amz-meta-colour": "red"}
    a = copy(t, b, "replaced.txt", f"/{b}/src.txt", {"x-amz-metadata-directive": "REPLACE", **replace})
    h = t.request("HEAD", b, "replaced.txt")
    got = described(h, list(want) + list(replace))
    expect = {k: replace.get(k) for k in got}
    diff = {k: v for k, v in got.items() if v != expect[k]}
    g = t.request("GET", b, "replaced.txt")
    tally.check(a.status == 200 and not diff and g.body == b"described",
                f"copy with REPLACE answered {st(a)}; "
                + (f"the copy differs from the request's headers: {diff}" if diff else
                   "the copy has exactly the request's headers and metadata")
                + f", body {g.body[:20]!r}")
    return tally.outcome()


@probe("s3.copy.etag")
def _(t: Target):
    b = t.new_bucket()
    tally = Tally()
    for key, body in (("one.txt", b"same-bytes"), ("empty.txt", b"")):
        # The source's ETag is what its PutObject answered, whatever it is: that it is the MD5 in
        # quotes is s3.object.etag-md5's statement, and quoting is none of this clause's.
        source = t.put(b, key, body).header("etag")
        if not source:
            raise Unjudgeable(f"PutObject {key} answered no ETag")
        a = copy(t, b, f"copy-of-{key}", f"/{b}/{key}")
        h = t.request("HEAD", b, f"copy-of-{key}")
        same = bare(result_etag(a)) == bare(source) and bare(h.header("etag")) == bare(source)
        tally.check(a.status == 200 and a.root != "Error" and same,
                    f"copy of {key} (ETag {source}) answered {st(a)} with result ETag {result_etag(a)!r}; "
                    f"HEAD of the copy ETag {h.header('etag')!r}")
    return tally.outcome()


@probe("s3.copy.onto-itself")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "self.txt", b"self-bytes", headers={"x-amz-meta-state": "before"})
    twin = copy(t, b, "other.txt", f"/{b}/self.txt")
    tally = Tally()
    for headers in ({}, {"x-amz-metadata-directive": "COPY"}):
        a = copy(t, b, "self.txt", f"/{b}/self.txt", headers)
        if twin.status != 200:
            tally.refused_anyway(a, f"copy onto itself with {headers.get('x-amz-metadata-directive', 'no directive')} "
                                    f"answered {st(a)}", f"copy onto another key {st(twin)}")
            continue
        tally.check(a.status == 400 and a.code == "InvalidRequest",
                    f"copy onto itself with {headers.get('x-amz-metadata-directive', 'no directive')} answered {st(a)}")
    a = copy(t, b, "self.txt", f"/{b}/self.txt", {"x-amz-metadata-directive": "REPLACE", "x-amz-meta-state": "after"})
    g = t.request("GET", b, "self.txt")
    tally.check(a.status == 200 and g.header("x-amz-meta-state") == "after" and g.body == b"self-bytes",
                f"copy onto itself with REPLACE answered {st(a)}; then x-amz-meta-state "
                f"{g.header('x-amz-meta-state')!r}, body {g.body[:20]!r}")
    return tally.outcome()


@probe("s3.copy.upload-part-copy-range")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "five.txt", b"hello")
    upload = create_upload(t, b, "ranged.txt")
    completed = False
    try:
        def part(n: int, rng: str) -> Answer:
            return t.request("PUT", b, "ranged.txt", query={"partNumber": str(n), "uploadId": upload},
                             headers={"x-amz-copy-source": f"/{b}/five.txt", "x-amz-copy-source-range": rng})

        tally = Tally()
        inside = part(1, "bytes=1-3")
        if inside.status != 200:
            # The clause's first half: a range inside the source is copied. Refused, it is not.
            return departs(f"UploadPartCopy of bytes=1-3 of a 5-byte source answered {st(inside)}: "
                           "the range is not copied (ranges past the end not tried)")
        # The part's ETag shows which bytes were copied; its quoting is no statement of this clause.
        tally.check((result_etag(inside) or "").strip('"') == md5q(b"ell").strip('"'),
                    f"bytes=1-3 of 'hello' answered 200 with part ETag {result_etag(inside)!r} (MD5 of 'ell' is {md5q(b'ell')})")
        for n, rng in ((2, "bytes=0-21"), (3, "bytes=3-5")):
            a = part(n, rng)
            tally.check(a.status in (400, 416), f"{rng} of a 5-byte source answered {st(a)}")
        parts = t.request("GET", b, "ranged.txt", query={"uploadId": upload})
        if parts.status == 200 and parts.root != "Error":
            numbers = sorted(int(child_text(p, "PartNumber") or 0) for p in parts.all("Part"))
            tally.check(numbers == [1], f"ListParts then lists parts {numbers}")
        else:
            tally.skip(f"ListParts answered {st(parts)}, so whether the refused ranges stored a part is unknown")
        if not tally.bad:
            c = complete(t, b, "ranged.txt", upload, [(1, result_etag(inside) or "")])
            completed = c.status == 200
            g = t.request("GET", b, "ranged.txt")
            tally.check(c.status == 200 and g.body == b"ell", f"completed with part 1: {st(c)}, reads {g.body!r}")
        return tally.outcome()
    finally:
        if not completed:
            abort(t, b, "ranged.txt", upload)
