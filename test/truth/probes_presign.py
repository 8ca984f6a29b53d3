"""Presigned URLs and signing (S3 behaviour 17; expiry as Amazon S3 documents it).

Presigned URLs here are made as the AWS SDKs make them: botocore's S3 query signer, whose
canonical request carries UNSIGNED-PAYLOAD (truth.Target.presign signs the empty-body hash,
which Amazon S3 does not accept for query signing).
"""

from __future__ import annotations

import datetime
import hashlib
import urllib.parse
from unittest import mock

import botocore.auth
from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from truth import Answer, Target, Unjudgeable, child_text, judge, probe, st


def url_for(t: Target, bucket: str | None, key: str | None = None, query: dict[str, str] | None = None) -> str:
    path = "/" + (bucket or "")
    if key is not None:
        path += "/" + urllib.parse.quote(key, safe="/~")
    qs = urllib.parse.urlencode(list((query or {}).items()), quote_via=urllib.parse.quote, safe="~")
    return t.endpoint.rstrip("/") + path + (f"?{qs}" if qs else "")


def presign(t: Target, method: str, bucket: str | None, key: str | None = None, expires: int = 300,
            query: dict[str, str] | None = None, headers: dict[str, str] | None = None,
            signed_at: datetime.datetime | None = None) -> str:
    req = AWSRequest(method=method, url=url_for(t, bucket, key, query), headers=headers or {})
    signer = S3SigV4QueryAuth(Credentials(t.key, t.secret), "s3", t.region, expires=expires)
    if signed_at is None:
        signer.add_auth(req)
    else:
        with mock.patch.object(botocore.auth, "get_current_datetime", lambda: signed_at):
            signer.add_auth(req)
    return req.url


def send_url(t: Target, method: str, url: str, headers: dict[str, str] | None = None, body: bytes = b"") -> Answer:
    parts = urllib.parse.urlsplit(url)
    return t.send(method, parts.path + (f"?{parts.query}" if parts.query else ""), dict(headers or {}), body)




def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


@probe("s3.presign.object")
def _(t: Target):
    b = t.new_bucket("ps")
    ok, seen = True, []
    for key in ["plain.txt", "dir/ü x+y.txt"]:
        body = f"via presigned put to {key}".encode()
        put = send_url(t, "PUT", presign(t, "PUT", b, key), body=body)
        get = send_url(t, "GET", presign(t, "GET", b, key))
        good = put.status == 200 and get.status == 200 and get.body == body
        ok &= good
        seen.append(f"{key!r}: presigned PUT {st(put)}, presigned GET {st(get)} "
                    f"body {'as put' if get.body == body else repr(get.body[:40])}")
    return judge(ok, "; ".join(seen))


@probe("s3.presign.list-buckets")
def _(t: Target):
    b = t.new_bucket("ps")
    a = send_url(t, "GET", presign(t, "GET", None))
    names = [child_text(n, "Name") for n in a.all("Buckets", "Bucket")]
    return judge(a.status == 200 and b in names,
                 f"presigned ListBuckets: {st(a)}, {len(names)} buckets, {b} {'listed' if b in names else 'not listed'}")


@probe("s3.presign.list-objects")
def _(t: Target):
    b = t.new_bucket("ps")
    for k in ["a/1", "a/2", "b"]:
        t.put(b, k)
    ok, seen = True, []
    for label, query, want in [
        ("ListObjectsV2", {"list-type": "2"}, ["a/1", "a/2", "b"]),
        ("ListObjects", {}, ["a/1", "a/2", "b"]),
        ("ListObjectsV2 prefix a/", {"list-type": "2", "prefix": "a/"}, ["a/1", "a/2"]),
        ("ListObjects max-keys 1", {"max-keys": "1"}, ["a/1"]),
    ]:
        a = send_url(t, "GET", presign(t, "GET", b, query=query))
        keys = [child_text(c, "Key") for c in a.all("Contents")]
        good = a.status == 200 and keys == want
        ok &= good
        seen.append(f"presigned {label}: {st(a)}, keys {keys}")
    return judge(ok, "; ".join(seen))


@probe("s3.presign.signed-payload")
def _(t: Target):
    b = t.new_bucket("ps")
    ok, seen = True, []
    for key, body in [("signed.txt", b"signed-payload-body"), ("empty.txt", b"")]:
        # t.request signs the body: x-amz-content-sha256 is its SHA-256, not UNSIGNED-PAYLOAD nor a chunked form.
        put = t.request("PUT", b, key, body=body)
        get = t.request("GET", b, key)
        good = put.status == 200 and get.status == 200 and get.body == body
        ok &= good
        seen.append(f"PUT {key} with x-amz-content-sha256 {hashlib.sha256(body).hexdigest()[:12]}...: "
                    f"{st(put)}, GET {st(get)} body {'as put' if get.body == body else repr(get.body[:30])}")
    return judge(ok, "; ".join(seen))


@probe("s3.presign.accept-encoding-signed")
def _(t: Target):
    b = t.new_bucket("ps")
    t.put(b, "ae.txt", b"accept-encoding")
    ok, seen = True, []
    for value in ["identity", "gzip, deflate, br"]:
        # Header signing: botocore puts every header but a few into SignedHeaders.
        req = AWSRequest(method="GET", url=url_for(t, b, "ae.txt"), headers={"Accept-Encoding": value})
        req.headers["x-amz-content-sha256"] = hashlib.sha256(b"").hexdigest()
        S3SigV4Auth(Credentials(t.key, t.secret), "s3", t.region).add_auth(req)
        signed = req.headers["Authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
        if "accept-encoding" not in signed:
            raise Unjudgeable(f"botocore left accept-encoding out of SignedHeaders ({signed})")
        a = send_url(t, "GET", url_for(t, b, "ae.txt"), dict(req.headers.items()))
        served = a.body == b"accept-encoding" or a.header("content-encoding") not in (None, "identity")
        good = a.status == 200 and served
        ok &= good
        seen.append(f"GET signed with accept-encoding ({value!r}) in SignedHeaders: {st(a)}")
        # Query signing: accept-encoding in X-Amz-SignedHeaders.
        url = presign(t, "GET", b, "ae.txt", headers={"Accept-Encoding": value})
        if "accept-encoding" not in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["X-Amz-SignedHeaders"][0]:
            raise Unjudgeable("botocore left accept-encoding out of X-Amz-SignedHeaders")
        a = send_url(t, "GET", url, {"Accept-Encoding": value})
        served = a.body == b"accept-encoding" or a.header("content-encoding") not in (None, "identity")
        good = a.status == 200 and served
        ok &= good
        seen.append(f"presigned GET with accept-encoding ({value!r}) in X-Amz-SignedHeaders: {st(a)}")
    return judge(ok, "; ".join(seen))


@probe("s3.presign.expired")
def _(t: Target):
    b = t.new_bucket("ps")
    t.put(b, "old.txt", b"old")
    two_minutes_ago = now() - datetime.timedelta(minutes=2)
    # Valid twins: signed now, and signed two minutes ago for 15 minutes (so a backdated signature is accepted).
    fresh = send_url(t, "GET", presign(t, "GET", b, "old.txt", expires=300))
    live = send_url(t, "GET", presign(t, "GET", b, "old.txt", expires=900, signed_at=two_minutes_ago))
    seen = [f"fresh: {st(fresh)}", f"signed 2 min ago for 15 min: {st(live)}"]
    ok, carried = True, []
    for label, signed_at, expires in [
        ("signed 2 min ago for 60 s", two_minutes_ago, 60),
        ("signed 2 h ago for 1 h", now() - datetime.timedelta(hours=2), 3600),
    ]:
        a = send_url(t, "GET", presign(t, "GET", b, "old.txt", expires=expires, signed_at=signed_at))
        ok &= a.status == 403
        seen.append(f"{label}: {st(a)} {a.text('Message') or ''}".strip())
        if a.status == 200:
            carried.append(seen[-1])
    if fresh.status != 200 or live.status != 200:
        # Unexpired URLs refused too, a 403 proves nothing; an expired one served departs.
        if carried:
            return judge(False, "; ".join(carried) + f" (unexpired: fresh {st(fresh)}, 2 min ago for 15 min {st(live)})")
        raise Unjudgeable("unexpired presigned URLs were refused: " + "; ".join(seen))
    return judge(ok, "; ".join(seen))
