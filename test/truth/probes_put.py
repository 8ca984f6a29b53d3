"""PutObject (S3 behaviour 8): POST as well as PUT, SHA-256 and SHA-1 checksums (and Amazon S3's
refusal of a wrong one), Content-Type inferred from the body, 412 for failing conditional headers on
PutObject and CreateMultipartUpload, and the cf-create-bucket-if-missing header."""

from __future__ import annotations

import base64
import hashlib
import secrets

from truth import accepted, judge, probe, st, Tally, Target, Unjudgeable

OTHER = '"00000000000000000000000000000000"'


def b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode()


@probe("s3.put.post")
def _(t: Target):
    b = t.new_bucket()
    post = t.request("POST", b, "posted.txt", body=b"posted-body")
    got = t.request("GET", b, "posted.txt")
    return judge(
        200 <= post.status < 300 and got.status == 200 and got.body == b"posted-body",
        f"POST /{b}/posted.txt answered {st(post)}; GET then answered {got.status} "
        f"with {got.body[:40]!r}",
    )


def checksum_accepted(t: Target, algorithm: str, fn) -> object:
    b = t.new_bucket()
    tally = Tally()
    for key, body in (("sum.txt", b"sha-body"), ("empty.txt", b"")):
        value = b64(fn(body).digest())
        a = t.request("PUT", b, key, headers={f"x-amz-checksum-{algorithm}": value}, body=body)
        got = t.request("GET", b, key)
        # s3rver has served a just-written object empty once in a while (its store finishes the write
        # after the answer): a read that differs right after an accepted write is read again, at most
        # twice, before it is judged.
        for _ in range(2):
            if a.status != 200 or got.body == body:
                break
            got = t.request("GET", b, key)
        tally.check(
            a.status == 200 and got.status == 200 and got.body == body,
            f"PUT {key} ({len(body)} bytes) with x-amz-checksum-{algorithm} {value} answered {st(a)}, "
            f"GET {got.status} {len(got.body)} bytes",
        )
    return tally.outcome()


@probe("s3.put.checksum-sha256")
def _(t: Target):
    return checksum_accepted(t, "sha256", hashlib.sha256)


@probe("s3.put.checksum-sha1")
def _(t: Target):
    return checksum_accepted(t, "sha1", hashlib.sha1)


@probe("s3.put.checksum-mismatch")
def _(t: Target):
    b = t.new_bucket()
    body = b"sha-body"
    tally = Tally()
    for algorithm, fn in (("sha256", hashlib.sha256), ("sha1", hashlib.sha1)):
        twin = t.request("PUT", b, f"good-{algorithm}.txt", body=body,
                         headers={f"x-amz-checksum-{algorithm}": b64(fn(body).digest())})
        wrong = b64(fn(b"another body").digest())
        a = t.request("PUT", b, f"bad-{algorithm}.txt", body=body, headers={f"x-amz-checksum-{algorithm}": wrong})
        got = t.request("HEAD", b, f"bad-{algorithm}.txt")
        if twin.status != 200:
            tally.refused_anyway(a, f"PUT with a wrong x-amz-checksum-{algorithm} answered {st(a)}, HEAD of the "
                                    f"key then {got.status}", f"the correct one {st(twin)}", stored=got.status == 200)
            continue
        tally.check(
            a.status == 400 and got.status == 404,
            f"PUT with a wrong x-amz-checksum-{algorithm} answered {st(a)}, "
            f"HEAD of the key then {got.status}",
        )
    return tally.outcome()


# Magic numbers every content sniffer knows.
SNIFFED = {
    "image/png": bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"),
    "image/gif": b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04",
    "application/pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
}


@probe("s3.put.content-type-inferred")
def _(t: Target):
    b = t.new_bucket()
    tally = Tally()
    for want, body in SNIFFED.items():
        key = want.replace("/", "-")
        t.put(b, key, body)  # t.request sends no Content-Type unless told to
        h = t.request("HEAD", b, key)
        got = h.header("content-type") or ""
        tally.check(got.split(";")[0].strip().lower() == want,
                    f"{want} bytes stored without Content-Type are served as {got!r}")
    return tally.outcome()


def object_with_etag(t: Target) -> tuple[str, str]:
    """A fresh bucket holding k.txt ("hello"), and that object's ETag."""
    b = t.new_bucket()
    etag = t.put(b, "k.txt", b"hello").header("etag")
    if not etag:
        raise Unjudgeable("PutObject answered no ETag")
    return b, etag


@probe("s3.put.conditional-412")
def _(t: Target):
    b, etag = object_with_etag(t)
    tally = Tally()
    # (failing header, value) and its valid twin: (key, header, value) that must be accepted.
    cases = [
        (("if-none-match", "*"), ("fresh.txt", "if-none-match", "*")),
        (("if-match", OTHER), ("k.txt", "if-match", etag)),
        (("if-none-match", etag), ("k.txt", "if-none-match", OTHER)),
        (("if-match", f"{OTHER}, \"11111111111111111111111111111111\""), ("k.txt", "if-match", f"{OTHER}, {etag}")),
    ]
    for (name, value), (tkey, tname, tvalue) in cases:
        twin = t.request("PUT", b, tkey, headers={tname: tvalue}, body=b"hello")
        a = t.request("PUT", b, "k.txt", headers={name: value}, body=b"overwritten")
        if twin.status != 200:
            tally.refused_anyway(a, f"PUT over an existing object with {name}: {value} answered {st(a)}",
                                 f"PUT {tkey} {tname}: {tvalue} {st(twin)}")
            if accepted(a):
                t.request("PUT", b, "k.txt", body=b"hello")  # the next input starts from the same object
            continue
        tally.check(a.status == 412, f"PUT over an existing object with {name}: {value} answered {st(a)}")
    got = t.request("GET", b, "k.txt")
    tally.check(got.body == b"hello", f"the object then reads {got.body[:20]!r}")
    return tally.outcome()


@probe("s3.put.create-multipart-conditional-412")
def _(t: Target):
    b, etag = object_with_etag(t)
    tally = Tally()

    def create(key: str, name: str, value: str):
        a = t.request("POST", b, key, query={"uploads": ""}, headers={name: value})
        upload = a.text("UploadId")
        if a.status == 200 and upload:
            t.request("DELETE", b, key, query={"uploadId": upload})
        return a

    cases = [
        (("if-none-match", "*"), ("fresh.txt", "if-none-match", "*")),
        (("if-match", OTHER), ("k.txt", "if-match", etag)),
        (("if-none-match", etag), ("k.txt", "if-none-match", OTHER)),
    ]
    for (name, value), (tkey, tname, tvalue) in cases:
        twin = create(tkey, tname, tvalue)
        a = create("k.txt", name, value)
        if twin.status != 200:
            tally.refused_anyway(a, f"CreateMultipartUpload over an existing object with {name}: {value} answered "
                                    f"{st(a)}", f"CreateMultipartUpload {tkey} {tname}: {tvalue} {st(twin)}")
            continue
        tally.check(a.status == 412, f"CreateMultipartUpload over an existing object with {name}: {value} "
                                     f"answered {st(a)}")
    return tally.outcome()


@probe("s3.put.create-bucket-if-missing")
def _(t: Target):
    name = f"truth-{secrets.token_hex(4)}-made"
    before = t.request("HEAD", name)
    if before.status != 404:
        raise Unjudgeable(f"HeadBucket of the fresh name {name} answered {before.status}, not 404")
    a = t.request("PUT", name, "made.txt", headers={"cf-create-bucket-if-missing": "true"}, body=b"made")
    if a.status == 200:
        t.made.append(("bucket", name, None))
    head = t.request("HEAD", name)
    if head.status == 200 and a.status != 200:
        t.made.append(("bucket", name, None))
    got = t.request("GET", name, "made.txt")
    return judge(
        a.status == 200 and head.status == 200 and got.body == b"made",
        f"PUT into missing bucket with cf-create-bucket-if-missing: true answered {st(a)}; "
        f"HeadBucket then {head.status}, GET {got.status} {got.body[:20]!r}",
    )
