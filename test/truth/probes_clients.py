"""What real clients rely on beyond what SPEC states, as Amazon S3 documents it: Content-MD5 checked on
PutObject and UploadPart (rclone); DeleteObjects' Quiet mode (mc rm, boto3); a CORS grant naming the
request's origin, * only for a rule of * (browsers); MaxKeys echoing the max-keys asked (paging clients);
x-amz-expiration of an object a lifecycle rule expires (boto3's Expiration); a page's keys in UTF-8
byte order (aws s3 sync); a PutObject whose default CRC32 does not match refused (boto3); 404 for a
conditional read of a missing key (HTTP caches, the AWS SDK for Java); Owner with fetch-owner alone
(minio-go); StartAfter echoed as sent (the SDKs' StartAfter); an empty DeleteObjects refused as MalformedXML
(batch deleters). Each probe decides one clause (source: s3)."""

from __future__ import annotations

import base64
import email.utils
import hashlib
import math
import re
import zlib

from probes_cors import config, cors_bucket, preflight, rule
from probes_multipart import create_upload
from truth import Tally, Target, Unjudgeable, accepted, child_text, probe, st


DAY = 86400
EXPIRATION = re.compile(r'^expiry-date="([^"]+)",\s?rule-id="([^"]*)"$')


def md5b64(body: bytes) -> str:
    return base64.b64encode(hashlib.md5(body).digest()).decode()


@probe("s3.put.content-md5")
def _(t: Target):
    b = t.new_bucket("md5")
    tally = Tally()
    # PutObject: the valid twin carries the MD5 of its body; the other the same MD5 with other bytes.
    whole = b"sent-whole"
    right = t.request("PUT", b, "right.txt", body=whole, headers={"Content-MD5": md5b64(whole)})
    twin_ok = accepted(right)
    wrong = t.request("PUT", b, "wrong.txt", body=b"sent-corrupted", headers={"Content-MD5": md5b64(whole)})
    left = t.request("HEAD", b, "wrong.txt")
    seen = f"PutObject of other bytes than its Content-MD5's -> {st(wrong)} (want 400 BadDigest), HEAD then {left.status}"
    named = wrong.status == 400 and wrong.code == "BadDigest"
    if twin_ok:
        tally.check(named and left.status == 404, seen)
    else:
        tally.refused_anyway(wrong, seen, f"PutObject with the right Content-MD5 -> {st(right)}",
                             stored=left.status == 200, as_named=named)
    # UploadPart: part 1 with the right MD5, part 2 with part 1's MD5 over other bytes.
    uid = create_upload(t, b, "parts.bin")
    try:
        one = b"part-one"
        q = {"uploadId": uid}
        p1 = t.request("PUT", b, "parts.bin", query={**q, "partNumber": "1"}, body=one,
                       headers={"Content-MD5": md5b64(one)})
        p2 = t.request("PUT", b, "parts.bin", query={**q, "partNumber": "2"}, body=b"part-corrupted",
                       headers={"Content-MD5": md5b64(one)})
        listed = t.request("GET", b, "parts.bin", query=q)
        numbers = [n.text for n in listed.all("Part", "PartNumber")]
        seen = (f"UploadPart of other bytes than its Content-MD5's -> {st(p2)} (want 400 BadDigest), "
                f"ListParts then {st(listed)} parts {numbers}")
        named = p2.status == 400 and p2.code == "BadDigest"
        if listed.status != 200 or numbers[:1] != ["1"]:
            # That ListParts lists the twin's part is s3.mpu.list-parts'; without it, the answer alone decides.
            seen += " (ListParts does not show part 1: the answer alone decides)"
        if accepted(p1):
            tally.check(named and "2" not in numbers, seen)
        else:
            tally.refused_anyway(p2, seen, f"UploadPart with the right Content-MD5 -> {st(p1)}",
                                 stored="2" in numbers, as_named=named)
    finally:
        t.request("DELETE", b, "parts.bin", query={"uploadId": uid})
    return tally.outcome()


def put_keys(t: Target, b: str, keys: tuple[str, ...]) -> None:
    """Stores each key with its own name as its bytes; a refusal leaves the clause unjudgeable."""
    for key in keys:
        put = t.put(b, key, key.encode())
        if not accepted(put):
            raise Unjudgeable(f"PutObject {key} answered {st(put)}")


def delete_objects(t: Target, b: str, body: bytes):
    return t.request("POST", b, query={"delete": ""}, body=body, headers={"Content-MD5": md5b64(body)})


@probe("s3.delete.quiet")
def _(t: Target):
    b = t.new_bucket("quiet")
    put_keys(t, b, ("v1", "f1", "q1"))
    tally = Tally()
    for body, want in (
        (b"<Delete><Object><Key>v1</Key></Object><Object><Key>v-missing</Key></Object></Delete>", ["v-missing", "v1"]),
        (b"<Delete><Quiet>false</Quiet><Object><Key>f1</Key></Object></Delete>", ["f1"]),
    ):
        a = delete_objects(t, b, body)
        listed = sorted(child_text(d, "Key") or "" for d in a.all("Deleted"))
        tally.check(accepted(a) and listed == want and not a.all("Error"),
                    f"DeleteObjects {body.decode()[8:60]}...: {st(a)}, Deleted {listed} (want {want})")
    quiet = delete_objects(
        t, b, b"<Delete><Quiet>true</Quiet><Object><Key>q1</Key></Object><Object><Key>q-missing</Key></Object></Delete>")
    listed = [child_text(d, "Key") for d in quiet.all("Deleted")]
    errors = [child_text(e, "Key") for e in quiet.all("Error")]
    head = t.request("HEAD", b, "q1")
    tally.check(accepted(quiet) and not listed and not errors and head.status == 404,
                f"DeleteObjects with Quiet true of q1 and q-missing: {st(quiet)}, Deleted {listed}, Error {errors} "
                f"(want none), HEAD q1 then {head.status}")
    return tally.outcome()


@probe("s3.cors.allow-origin-echo")
def _(t: Target):
    # A browser refuses Access-Control-Allow-Origin * for a request with credentials.
    b = cors_bucket(t, config(rule(["https://app.example.com", "https://*.example.org"], ["GET", "PUT"]),
                              rule(["*"], ["GET"])), "origin")
    tally = Tally()
    for origin, method, want in (
        ("https://app.example.com", "PUT", "https://app.example.com"),
        ("https://files.example.org", "PUT", "https://files.example.org"),
        ("https://elsewhere.example.net", "GET", "*"),
    ):
        pre = preflight(t, b, "k.txt", origin, method)
        actual = t.request("GET", b, "k.txt", headers={"Origin": origin})
        for what, a in (("preflight", pre), ("GET", actual)):
            got = a.header("access-control-allow-origin")
            if got is None:
                # Whether the request is granted at all is the other CORS clauses'.
                tally.skip(f"{what} from {origin} granted nothing ({st(a)})")
                continue
            tally.check(got == want, f"{what} from {origin}: Access-Control-Allow-Origin {got!r} (want {want!r})")
    return tally.outcome()


@probe("s3.list.max-keys-echo")
def _(t: Target):
    b = t.new_bucket("maxkeys")
    put_keys(t, b, ("m1", "m2", "m3"))
    tally = Tally()
    for query, want in (
        ({"list-type": "2", "max-keys": "2"}, "2"),
        ({"list-type": "2", "max-keys": "7"}, "7"),
        ({"list-type": "2"}, "1000"),
        ({"max-keys": "2"}, "2"),
        ({}, "1000"),
    ):
        a = t.request("GET", b, query=query)
        if not accepted(a):
            tally.skip(f"listing {query} answered {st(a)}")
            continue
        got = a.text("MaxKeys")
        tally.check(got == want, f"listing {query or 'V1 without max-keys'}: MaxKeys {got!r} (want {want!r})")
    return tally.outcome()


@probe("s3.lifecycle.expiration-header")
def _(t: Target):
    b = t.new_bucket("expiry")
    doc = ("<LifecycleConfiguration>"
           "<Rule><ID>expire-logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>"
           "<Expiration><Days>3</Days></Expiration></Rule>"
           "<Rule><ID>paused</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Disabled</Status>"
           "<Expiration><Days>1</Days></Expiration></Rule>"
           "</LifecycleConfiguration>").encode()
    put = t.request("PUT", b, query={"lifecycle": ""}, body=doc, headers={"Content-MD5": md5b64(doc)})
    if not accepted(put):
        raise Unjudgeable(f"PutBucketLifecycleConfiguration answered {st(put)}")
    tally = Tally()
    covered = t.put(b, "logs/today.log", b"expiring")
    if not accepted(covered):
        raise Unjudgeable(f"PutObject logs/today.log answered {st(covered)}")
    head = t.request("HEAD", b, "logs/today.log")
    get = t.request("GET", b, "logs/today.log")
    value = covered.header("x-amz-expiration")
    m = EXPIRATION.match(value or "")
    want = None
    modified = head.header("last-modified")
    if modified:
        created = email.utils.parsedate_to_datetime(modified).timestamp()
        # Creation plus 3 days, rounded up to the next midnight UTC; Last-Modified counts whole seconds.
        want = {math.ceil((created + 3 * DAY + s) / DAY) * DAY for s in (0, 0.999)}
    at = email.utils.parsedate_to_datetime(m.group(1)).timestamp() if m else None
    tally.check(bool(m) and m.group(2) == "expire-logs" and (want is None or at in want),
                f"PutObject logs/today.log (rule expire-logs, 3 days): x-amz-expiration {value!r}, "
                f"Last-Modified {modified!r}")
    for what, a in (("HEAD", head), ("GET", get)):
        tally.check(accepted(a) and a.header("x-amz-expiration") == value,
                    f"{what} of it: {st(a)} x-amz-expiration {a.header('x-amz-expiration')!r}")
    for key, why in (("other/kept.txt", "outside the rule's prefix"), ("tmp/kept.txt", "under a Disabled rule")):
        a = t.put(b, key, b"kept")
        if not accepted(a):
            tally.skip(f"PutObject {key} answered {st(a)}")
            continue
        tally.check(a.header("x-amz-expiration") is None,
                    f"PutObject {key} ({why}): x-amz-expiration {a.header('x-amz-expiration')!r} (want none)")
    return tally.outcome()


@probe("s3.list.key-order")
def _(t: Target):
    b = t.new_bucket("order")
    # Upper case first, ~ after the letters, é after z, U+FF5A before an emoji (UTF-16 says the reverse).
    keys = ("😀", "café", "banana~", "apple", "ｚ", "cafz", "Zebra", "bananas", "cafe", "banana")
    put_keys(t, b, keys)
    want = sorted(keys, key=lambda k: k.encode("utf-8"))
    tally = Tally()
    for query, what in (({"list-type": "2"}, "ListObjectsV2"), ({}, "ListObjects")):
        a = t.request("GET", b, query=query)
        listed = [child_text(c, "Key") for c in a.all("Contents")]
        if not accepted(a) or sorted(listed, key=lambda k: (k or "").encode()) != want:
            # Which keys a page lists is the other listing clauses'; this one judges their order.
            tally.skip(f"{what} answered {st(a)} listing {listed}")
            continue
        tally.check(listed == want, f"{what}: keys {listed} (want {want})")
    return tally.outcome()


def crc32b64(body: bytes) -> str:
    return base64.b64encode(zlib.crc32(body).to_bytes(4, "big")).decode()


@probe("s3.checksum.crc32-mismatch")
def _(t: Target):
    b = t.new_bucket("crc32")
    tally = Tally()
    # As boto3 sends a PutObject by default: the algorithm named, the CRC32 in a header.
    whole = b"sent-whole"
    sent = {"x-amz-sdk-checksum-algorithm": "CRC32", "x-amz-checksum-crc32": crc32b64(whole)}
    right = t.request("PUT", b, "right.txt", body=whole, headers=sent)
    wrong = t.request("PUT", b, "wrong.txt", body=b"sent-corrupted", headers=sent)
    left = t.request("HEAD", b, "wrong.txt")
    seen = f"PutObject of other bytes than its x-amz-checksum-crc32's -> {st(wrong)} (want 400 BadDigest), HEAD then {left.status}"
    named = wrong.status == 400 and wrong.code == "BadDigest"
    if accepted(right):
        tally.check(named and left.status == 404, seen)
    else:
        tally.refused_anyway(wrong, seen, f"PutObject with the right CRC32 -> {st(right)}",
                             stored=left.status == 200, as_named=named)
    return tally.outcome()


@probe("s3.cond.missing-key-404")
def _(t: Target):
    b = t.new_bucket("condmissing")
    here = t.put(b, "here.txt", b"here")
    etag = here.header("etag")
    if not accepted(here) or not etag:
        raise Unjudgeable(f"PutObject here.txt answered {st(here)}, ETag {etag!r}")
    # The valid twins: each header on the object that is there, where it lets the read through.
    twins = {
        "If-Match": t.request("GET", b, "here.txt", headers={"If-Match": etag}),
        "If-None-Match": t.request("GET", b, "here.txt", headers={"If-None-Match": '"00000000000000000000000000000000"'}),
    }
    tally = Tally()
    for method, name, value in (
        ("GET", "If-Match", etag), ("GET", "If-Match", "*"), ("HEAD", "If-Match", etag),
        ("GET", "If-None-Match", etag), ("GET", "If-None-Match", "*"), ("HEAD", "If-None-Match", etag),
    ):
        a = t.request(method, b, "gone.txt", headers={name: value})
        named = a.status == 404 and (method == "HEAD" or a.code == "NoSuchKey")
        seen = f"{method} of a missing key with {name}: {value} -> {st(a)} (want 404{' NoSuchKey' if method == 'GET' else ''})"
        twin = twins[name]
        if accepted(twin):
            tally.check(named, seen)
        else:
            tally.refused_anyway(a, seen, f"GET of here.txt with {name} -> {st(twin)}", as_named=named)
    return tally.outcome()


@probe("s3.list.fetch-owner")
def _(t: Target):
    b = t.new_bucket("owner")
    put_keys(t, b, ("o1", "o2"))
    tally = Tally()
    for extra, asked in (({"fetch-owner": "true"}, True), ({}, False), ({"fetch-owner": "false"}, False)):
        a = t.request("GET", b, query={"list-type": "2", **extra})
        contents = a.all("Contents")
        keys = [child_text(c, "Key") for c in contents]
        if not accepted(a) or keys != ["o1", "o2"]:
            # Which keys a page lists is the other listing clauses'; this one judges their Owner.
            tally.skip(f"ListObjectsV2 {extra or 'without fetch-owner'} answered {st(a)} listing {keys}")
            continue
        ids = [child_text(o, "ID") for c in contents for o in c if o.tag.endswith("Owner")]
        owners = sum(1 for c in contents for o in c if o.tag.endswith("Owner"))
        ok = len(ids) == 2 and all(i and i.strip() for i in ids) if asked else owners == 0
        tally.check(ok, f"ListObjectsV2 {extra or 'without fetch-owner'}: {owners} Owner, IDs {ids} "
                        f"(want {'an Owner with an ID for each key' if asked else 'none'})")
    return tally.outcome()


@probe("s3.list.start-after-echo")
def _(t: Target):
    b = t.new_bucket("startafter")
    put_keys(t, b, ("photos/a", "photos/z"))
    tally = Tally()
    for sent in ("photos/a", "photos/b é+c%"):
        a = t.request("GET", b, query={"list-type": "2", "start-after": sent})
        if not accepted(a):
            tally.skip(f"ListObjectsV2 start-after {sent!r} answered {st(a)}")
            continue
        got = a.text("StartAfter")
        tally.check(got == sent, f"ListObjectsV2 start-after {sent!r}: StartAfter {got!r} (want {sent!r})")
    return tally.outcome()


@probe("s3.delete.empty-malformed-xml")
def _(t: Target):
    b = t.new_bucket("emptydelete")
    put_keys(t, b, ("d1",))
    twin = delete_objects(t, b, b"<Delete><Object><Key>d1</Key></Object></Delete>")
    tally = Tally()
    for body in (b"<Delete><Quiet>true</Quiet></Delete>", b"<Delete></Delete>"):
        a = delete_objects(t, b, body)
        named = a.status == 400 and a.code == "MalformedXML"
        seen = f"DeleteObjects {body.decode()} -> {st(a)} (want 400 MalformedXML)"
        if accepted(twin):
            tally.check(named, seen)
        else:
            tally.refused_anyway(a, seen, f"DeleteObjects naming d1 -> {st(twin)}", as_named=named)
    return tally.outcome()
