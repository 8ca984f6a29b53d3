"""Objects: DeleteObjects (S3 behaviour 12 and its 1000-key limit), DeleteObject of a missing key,
and what clients rely on from Amazon S3 beyond SPEC: user metadata, content headers (on PutObject
and multipart uploads) and PutObject checksums with x-amz-checksum-mode."""

from __future__ import annotations

import base64
import hashlib
from xml.sax.saxutils import escape

from probes_multipart import checksum, complete, completed, create_upload, st, upload_part
from truth import Answer, Target, Unjudgeable, child_text, judge, probe


def delete_body(keys: list[str]) -> bytes:
    return ("<Delete>" + "".join(f"<Object><Key>{escape(k)}</Key></Object>" for k in keys) + "</Delete>").encode()


def delete_objects(t: Target, b: str, keys: list[str] | None = None, body: bytes | None = None) -> Answer:
    """DeleteObjects with a Content-MD5, as Amazon S3 requires; `body` overrides the document."""
    body = delete_body(keys or []) if body is None else body
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return t.request("POST", b, query={"delete": ""}, body=body, headers={"Content-MD5": md5})


def deleted_keys(a: Answer) -> list[str]:
    return [child_text(d, "Key") or "" for d in a.all("Deleted")]


def present(t: Target, b: str, keys: list[str]) -> dict[str, int]:
    return {k: t.request("HEAD", b, k).status for k in keys}


def delete_at_limit(t: Target, b: str) -> tuple[bool, str]:
    """DeleteObjects of k0..k999, some of which exist: all of those are gone, the others kept."""
    there = ["k0", "k1", "k500", "k998", "k999"]
    for k in there + ["survivor"]:
        t.put(b, k, k.encode())
    a = delete_objects(t, b, [f"k{i}" for i in range(1000)])
    errors = [(child_text(e, "Key"), child_text(e, "Code")) for e in a.all("Error")]
    after = present(t, b, there + ["survivor"])
    ok = (a.status == 200 and a.root != "Error" and not errors
          and all(after[k] == 404 for k in there) and after["survivor"] == 200)
    return ok, (f"DeleteObjects of 1000 keys answered {st(a)} with {len(deleted_keys(a))} Deleted and errors {errors}; "
                f"HEAD after: {after}")


@probe("s3.delete.max-keys")
def _(t: Target):
    b = t.new_bucket()
    ok, why = delete_at_limit(t, b)
    return judge(ok, why)


@probe("s3.limit.delete-objects-keys")
def _(t: Target):
    b = t.new_bucket()
    ok, why = delete_at_limit(t, b)
    for k in ("k0", "k1000", "keep"):
        t.put(b, k, k.encode())
    a = delete_objects(t, b, [f"k{i}" for i in range(1001)])
    after = present(t, b, ["k0", "k1000"])
    refused = 400 <= a.status < 500 and all(s == 200 for s in after.values())
    return judge(ok and refused, f"{why}; DeleteObjects of 1001 keys answered {st(a)}, HEAD after: {after}")


@probe("s3.delete.no-trim")
def _(t: Target):
    b = t.new_bucket()
    spaced = [" both ", " lead", "trail "]
    plain = [k.strip() for k in spaced]
    for k in spaced + plain:
        t.put(b, k, k.encode())
    a = delete_objects(t, b, spaced)
    if a.status != 200 or a.root == "Error":
        raise Unjudgeable(f"DeleteObjects answered {st(a)}")
    reported = deleted_keys(a)
    after = present(t, b, spaced + plain)
    ok = (sorted(reported) == sorted(spaced) and all(after[k] == 404 for k in spaced)
          and all(after[k] == 200 for k in plain))
    shown = {repr(k): s for k, s in after.items()}
    return judge(ok, f"DeleteObjects of {spaced!r}: {a.status}, Deleted keys {reported!r}; HEAD after: {shown}")


@probe("s3.object.delete-missing")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "here.txt", b"here")
    seen, ok = [], True
    for key, what in (("here.txt", "present"), ("here.txt", "just deleted"), ("never-there.txt", "never written"),
                      ("no/such/dir/x.txt", "never written, nested")):
        a = t.request("DELETE", b, key)
        ok &= a.status == 204 and a.root != "Error"
        seen.append(f"DELETE {key} ({what}): {st(a)}")
        # The twin is a delete the target carries out: any 2xx. That it is 204 is the clause too.
        if what == "present" and not 200 <= a.status < 300:
            raise Unjudgeable(f"DeleteObject of a present key answered {st(a)}")
    return judge(ok, "; ".join(seen))


META = {"x-amz-meta-colour": "teal", "x-amz-meta-owner-id": "42", "x-amz-meta-note": "two words here",
        "x-amz-meta-pairs": "a=b; c,d/e:f", "x-amz-meta-mixed": "MixedCase Value"}


def meta_of(a: Answer) -> dict[str, str]:
    return {k: v for k, v in a.headers.items() if k.startswith("x-amz-meta-")}


@probe("s3.object.user-metadata")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "described.txt", b"described", headers=META)
    seen, ok = [], True
    for method in ("GET", "HEAD"):
        a = t.request(method, b, "described.txt")
        got = meta_of(a)
        ok &= a.status == 200 and got == META
        seen.append(f"{method} {a.status}: {got if got != META else 'metadata as sent'}")
    return judge(ok, "; ".join(seen) + f" (sent {META})")


CONTENT = [
    {"content-type": "text/plain; charset=utf-8", "cache-control": "max-age=3600, must-revalidate",
     "content-disposition": 'attachment; filename="report.txt"', "content-encoding": "deflate, gzip",
     "content-language": "de-CH", "expires": "Wed, 21 Oct 2037 07:28:00 GMT"},
    {"content-type": "application/json", "cache-control": "no-store",
     "content-disposition": "inline", "content-encoding": "br",
     "content-language": "en-US, fr-CA", "expires": "Thu, 01 Jan 2037 00:00:00 GMT"},
]


def headers_match(a: Answer, want: dict[str, str]) -> tuple[bool, str]:
    diff = {k: a.header(k) for k, v in want.items() if a.header(k) != v}
    return not diff, ("as sent" if not diff else f"differing {diff}")


@probe("s3.object.content-headers")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for i, hdrs in enumerate(CONTENT):
        key = f"content-{i}.txt"
        t.put(b, key, b"described", headers=hdrs)
        for method in ("GET", "HEAD"):
            a = t.request(method, b, key)
            good, why = headers_match(a, hdrs)
            ok &= a.status == 200 and good
            seen.append(f"{method} {key} {a.status}: {why}")
    return judge(ok, "; ".join(seen))


@probe("s3.object.multipart-headers")
def _(t: Target):
    b = t.new_bucket()
    given = {"content-type": "text/csv", "cache-control": "no-cache", "content-disposition": "inline",
             "content-encoding": "gzip", "content-language": "fr", "expires": "Wed, 21 Oct 2037 07:28:00 GMT",
             "x-amz-meta-source": "multipart", "x-amz-meta-parts": "one"}
    uid = create_upload(t, b, "assembled.csv", headers=given)
    p = upload_part(t, b, "assembled.csv", uid, 1, b"a,b\n")
    c = complete(t, b, "assembled.csv", uid, [(1, p.header("etag") or "")])
    if not completed(c):
        raise Unjudgeable(f"CompleteMultipartUpload answered {st(c)}")
    seen, ok = [], True
    for method in ("HEAD", "GET"):
        a = t.request(method, b, "assembled.csv")
        good, why = headers_match(a, given)
        extra = {k: v for k, v in meta_of(a).items() if k not in given}
        ok &= a.status == 200 and good and not extra
        seen.append(f"{method} {a.status}: {why}" + (f", extra metadata {extra}" if extra else ""))
    return judge(ok, "; ".join(seen))


ALGS = ("crc32", "crc32c", "sha1", "sha256")
BODY = b"checksummed"


@probe("s3.checksum.put-algorithms")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for alg in ALGS:
        s = checksum(alg, BODY)
        a = t.request("PUT", b, f"{alg}.txt", body=BODY,
                      headers={f"x-amz-checksum-{alg}": s, "x-amz-sdk-checksum-algorithm": alg.upper()})
        got = a.header(f"x-amz-checksum-{alg}")
        ok &= a.status == 200 and got == s
        seen.append(f"{alg.upper()} {s}: {st(a)}, x-amz-checksum-{alg} {got!r}")
    return judge(ok, "; ".join(seen))


@probe("s3.checksum.mode-enabled")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    undecided = []
    for alg in ALGS:
        s = checksum(alg, BODY)
        p = t.request("PUT", b, f"{alg}.txt", body=BODY,
                      headers={f"x-amz-checksum-{alg}": s, "x-amz-sdk-checksum-algorithm": alg.upper()})
        if p.status != 200:
            undecided.append(f"PutObject with {alg.upper()} answered {st(p)}")
            continue
        for method in ("GET", "HEAD"):
            a = t.request(method, b, f"{alg}.txt", headers={"x-amz-checksum-mode": "ENABLED"})
            got = a.header(f"x-amz-checksum-{alg}")
            ok &= a.status == 200 and got == s and (method == "HEAD" or a.body == BODY)
            seen.append(f"{method} {alg.upper()}: {a.status} {got!r}")
    if ok and undecided:
        raise Unjudgeable("; ".join(undecided + seen))
    return judge(ok, "; ".join(seen) + f" (stored with {', '.join(f'{x}={checksum(x, BODY)}' for x in ALGS)})")
