"""The object storage error table of SPEC (Errors): MalformedXML, the DeleteObjects key limit,
NoSuchBucket, NoSuchKey, NoSuchUpload, 412, 501 NotImplemented and CORS requests matching no rule.
Every refusal is set beside its valid twin on the same target; an input whose twin the target
refuses is left out (and said so), and a probe with no input left is unjudgeable."""

from __future__ import annotations

import base64
import hashlib
import secrets

from probes_multipart import complete, completed, create_upload, st, upload_part
from probes_objects import delete_objects
from truth import Answer, Target, Unjudgeable, judge, probe


class Tally:
    """Inputs tried: each a refusal judged against the twin that the target accepted."""

    def __init__(self) -> None:
        self.ok, self.lines, self.judged = True, [], 0

    def twin_refused(self, what: str, a: Answer, bad: Answer | None = None) -> None:
        """The valid twin was refused: a refusal of `bad` proves nothing, but its acceptance departs."""
        if bad is not None and ok2(bad):
            self.add(False, f"{what}: carried out with {st(bad)} (its valid twin answered {st(a)})")
        else:
            self.lines.append(f"[{what}: not judged, its valid twin answered {st(a)}]")

    def add(self, good: bool, line: str) -> None:
        self.judged += 1
        self.ok &= good
        self.lines.append(line if good else f"{line} <- departs")

    def outcome(self):
        if not self.judged:
            raise Unjudgeable("; ".join(self.lines))
        return judge(self.ok, "; ".join(self.lines))


def ok2(a: Answer) -> bool:
    return 200 <= a.status < 300 and a.root != "Error"


def is_error(a: Answer, status: int, code: str) -> bool:
    """`status` with the error `code` the clause names; only an answer to HEAD, which has no body to
    carry a code, is judged by its status alone (a GET or POST answered with no body has no code)."""
    return a.status == status and (a.code == code or a.method == "HEAD")


@probe("s3.error.malformed-xml")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "a", b"a")
    tally = Tally()
    twin = delete_objects(t, b, ["a"])
    for body in (b"<Delete><Object><Key>a</Key>", b"this is not xml", b"<Delete><Object><Key>a</Object></Delete>"):
        a = delete_objects(t, b, body=body)
        if not ok2(twin):
            tally.twin_refused(f"DeleteObjects {body.decode()!r}", twin, a)
            continue
        tally.add(is_error(a, 400, "MalformedXML"), f"DeleteObjects {body.decode()!r}: {st(a)}")
    for k in (f"k{i}" for i in (0, 1000)):
        t.put(b, k, b"x")
    a = delete_objects(t, b, [f"k{i}" for i in range(1001)])
    if not ok2(twin):
        tally.twin_refused("DeleteObjects of 1001 keys", twin, a)
    else:
        tally.add(is_error(a, 400, "MalformedXML"), f"DeleteObjects of 1001 keys (SPEC's example): {st(a)}")
    uid = create_upload(t, b, "m.bin")
    p = upload_part(t, b, "m.bin", uid, 1, b"part")
    etag = p.header("etag") or ""
    bad = f"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>{etag}</ETag></Part>".encode()
    a = t.request("POST", b, "m.bin", query={"uploadId": uid}, body=bad)
    c = complete(t, b, "m.bin", uid, [(1, etag)])  # the twin, after: the upload was a valid one
    if not completed(c):
        tally.twin_refused("CompleteMultipartUpload without its closing tag", c, a)
    else:
        tally.add(is_error(a, 400, "MalformedXML"), f"CompleteMultipartUpload without its closing tag: {st(a)} "
                                                     f"(well-formed, the same upload then completed: {c.status})")
    return tally.outcome()


@probe("s3.error.delete-over-limit")
def _(t: Target):
    b = t.new_bucket()
    twin = delete_objects(t, b, [f"t{i}" for i in range(1000)])
    tally = Tally()
    for n in (1001, 3000):
        t.put(b, "k0", b"x")
        a = delete_objects(t, b, [f"k{i}" for i in range(n)])
        h = t.request("HEAD", b, "k0")
        if not ok2(twin):
            tally.twin_refused(f"DeleteObjects of {n} keys", twin, a)
            continue
        tally.add(is_error(a, 400, "MalformedXML") and h.status == 200,
                  f"DeleteObjects of {n} keys: {st(a)}, then HEAD k0 (listed first) {h.status}")
    tally.lines.insert(0, f"1000 keys: {st(twin)}")
    return tally.outcome()


@probe("s3.error.missing-bucket-404")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "x.txt", b"x")
    gone = f"truth-{secrets.token_hex(6)}-absent"
    tally = Tally()
    for what, method, key, query in (("ListObjectsV2", "GET", None, {"list-type": "2"}),
                                     ("ListObjects", "GET", None, None),
                                     ("GetObject", "GET", "x.txt", None),
                                     ("HeadBucket", "HEAD", None, None),
                                     ("HeadObject", "HEAD", "x.txt", None)):
        twin = t.request(method, b, key, query=query)
        a = t.request(method, gone, key, query=query)
        if twin.status != 200:
            tally.twin_refused(f"{what} of a missing bucket", twin, a)
            continue
        tally.add(is_error(a, 404, "NoSuchBucket"), f"{what} of a missing bucket: {st(a)}")
    return tally.outcome()


@probe("s3.error.no-such-key")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "dir/here.txt", b"here")
    tally = Tally()
    cases = (("GetObject", "GET", {}, "absent.txt"),
             ("GetObject, nested", "GET", {}, "dir/absent.txt"),
             ("GetObject with Range", "GET", {"Range": "bytes=0-1"}, "absent.txt"),
             ("HeadObject", "HEAD", {}, "absent.txt"))
    for what, method, headers, key in cases:
        twin = t.request(method, b, "dir/here.txt", headers=headers)
        a = t.request(method, b, key, headers=headers)
        if twin.status not in (200, 206):
            tally.twin_refused(f"{what} of {key}", twin, a)
            continue
        tally.add(is_error(a, 404, "NoSuchKey"), f"{what} of {key}: {st(a)}")
    twin = t.request("PUT", b, "copy.txt", headers={"x-amz-copy-source": f"/{b}/dir/here.txt"})
    a = t.request("PUT", b, "copy2.txt", headers={"x-amz-copy-source": f"/{b}/absent.txt"})
    if twin.status != 200:
        tally.twin_refused("CopyObject from a missing source key", twin, a)
    else:
        tally.add(is_error(a, 404, "NoSuchKey"), f"CopyObject from a missing source key: {st(a)}")
    return tally.outcome()


@probe("s3.error.no-such-upload")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "real.bin")
    bogus = "truth" + secrets.token_hex(20)
    aborted = create_upload(t, b, "aborted.bin")
    ab = t.request("DELETE", b, "aborted.bin", query={"uploadId": aborted})
    tally = Tally()
    if not ok2(ab):
        tally.twin_refused("uploads of an aborted upload", ab)

    def try_op(what: str, method: str, key: str, query: dict, body: bytes, valid: str, bads: list[tuple[str, str]]):
        twin = t.request(method, b, key, query={**query, "uploadId": valid}, body=body)
        for label, bad in bads:
            a = t.request(method, b, key if label != "an aborted" else "aborted.bin", query={**query, "uploadId": bad}, body=body)
            if not ok2(twin):
                tally.twin_refused(f"{what} of {label} upload", twin, a)
            else:
                tally.add(a.code == "NoSuchUpload", f"{what} of {label} upload: {st(a)}")

    bads = [("an unknown", bogus)] + ([("an aborted", aborted)] if ok2(ab) else [])
    try_op("UploadPart", "PUT", "real.bin", {"partNumber": "1"}, b"part", uid, bads)
    try_op("ListParts", "GET", "real.bin", {}, b"", uid, bads)
    etag = '"' + hashlib.md5(b"part").hexdigest() + '"'
    body = f"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>{etag}</ETag></Part></CompleteMultipartUpload>"
    # Complete last, its twin after the refusals: the twin completes the real upload.
    tried = [(label, t.request("POST", b, "aborted.bin" if label == "an aborted" else "real.bin",
                                query={"uploadId": bad}, body=body.encode())) for label, bad in bads]
    c = complete(t, b, "real.bin", uid, [(1, etag)])
    if not completed(c):
        for label, a in tried:
            tally.twin_refused(f"CompleteMultipartUpload of {label} upload", c, a)
    else:
        for label, a in tried:
            tally.add(a.code == "NoSuchUpload", f"CompleteMultipartUpload of {label} upload: {st(a)}")
    return tally.outcome()


@probe("s3.error.precondition-failed")
def _(t: Target):
    b = t.new_bucket()
    etag = t.put(b, "k.txt", b"original").header("etag") or ""
    wrong = '"0123456789abcdef0123456789abcdef"'
    tally = Tally()
    reads = (("GET If-Match other ETag", "GET", {"If-Match": etag}, {"If-Match": wrong}),
             ("GET If-Match list of other ETags", "GET", {"If-Match": etag}, {"If-Match": f'{wrong}, "ffff"'}),
             ("HEAD If-Match other ETag", "HEAD", {"If-Match": etag}, {"If-Match": wrong}),
             ("GET If-Unmodified-Since 2000", "GET", {"If-Unmodified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"},
              {"If-Unmodified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"}))
    for what, method, good, bad in reads:
        twin = t.request(method, b, "k.txt", headers=good)
        a = t.request(method, b, "k.txt", headers=bad)
        if twin.status != 200:
            tally.twin_refused(what, twin, a)
            continue
        tally.add(is_error(a, 412, "PreconditionFailed"), f"{what}: {st(a)}")
    writes = (("PutObject If-None-Match *", "PUT", {}, {"If-None-Match": "*"}),
              ("PutObject If-Match other ETag", "PUT", {}, {"If-Match": wrong}),
              ("CreateMultipartUpload If-None-Match *", "POST", {"uploads": ""}, {"If-None-Match": "*"}))
    for what, method, query, cond in writes:
        # The twin: If-None-Match * on a new key, If-Match with the object's own ETag.
        twin_key, twin_cond = ("new-" + secrets.token_hex(3), cond) if "If-None-Match" in cond else ("k.txt", {"If-Match": etag})
        twin = t.request(method, b, twin_key, query=query, headers=twin_cond, body=b"original" if method == "PUT" else b"")
        a = t.request(method, b, "k.txt", query=query, headers=cond, body=b"replaced" if method == "PUT" else b"")
        g = t.request("GET", b, "k.txt")
        if not ok2(twin):
            tally.twin_refused(what, twin, a)
            continue
        tally.add(is_error(a, 412, "PreconditionFailed") and g.body == b"original",
                  f"{what}: {st(a)}, object then {g.body[:12]!r}")
    # CompleteMultipartUpload If-Match another ETag; its twin after it (If-Match the object's own ETag)
    # completes a second upload of the same bytes.
    results, changed = [], False
    for cond, body in (({"If-Match": wrong}, b"from-upload"), ({"If-Match": etag}, b"original")):
        uid = create_upload(t, b, "k.txt")
        p = upload_part(t, b, "k.txt", uid, 1, body)
        results.append(complete(t, b, "k.txt", uid, [(1, p.header("etag") or "")], headers=cond))
        if body == b"from-upload":
            changed = t.request("GET", b, "k.txt").body == body
    a, twin = results
    if not completed(twin):
        tally.twin_refused("CompleteMultipartUpload If-Match other ETag", twin, a)
    else:
        tally.add(is_error(a, 412, "PreconditionFailed") and not changed,
                  f"CompleteMultipartUpload If-Match other ETag: {st(a)}, object {'replaced' if changed else 'kept'}")
    return tally.outcome()


@probe("s3.error.not-implemented")
def _(t: Target):
    tally = Tally()
    name = f"truth-{secrets.token_hex(4)}-nolock"
    twin = t.request("PUT", name, headers={"x-amz-bucket-object-lock-enabled": "false"})
    if twin.status == 200:
        t.made.append(("bucket", name, None))
    locked = name.replace("nolock", "lock")
    t.made.append(("bucket", locked, None))
    a = t.request("PUT", locked, headers={"x-amz-bucket-object-lock-enabled": "true"})
    if twin.status == 200:
        tally.add(is_error(a, 501, "NotImplemented"), f"CreateBucket with object lock enabled: {st(a)}")
    else:
        tally.twin_refused("CreateBucket with object lock enabled", twin, a)
    b = t.new_bucket()
    for what, query in (("ListObjectsV2", {"list-type": "2"}), ("ListObjects", {})):
        twin = t.request("GET", b, query=query)
        a = t.request("GET", b, query={**query, "truth-unknown": "1"})
        if twin.status != 200:
            tally.twin_refused(f"{what} with an unsupported search parameter", twin, a)
            continue
        tally.add(is_error(a, 501, "NotImplemented"),
                  f"{what} with an unsupported search parameter truth-unknown: {st(a)}")
    # An operation of the unsupported object-lock feature (GetObjectLockConfiguration is only a stand-in).
    body = b"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>"
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    a = t.request("PUT", b, query={"object-lock": ""}, body=body, headers={"Content-MD5": md5})
    # Its valid twin: a supported configuration call of the same shape is accepted.
    twin = t.request("PUT", b, query={"cors": ""}, body=CORS,
                     headers={"Content-MD5": base64.b64encode(hashlib.md5(CORS).digest()).decode()})
    if ok2(twin):
        tally.add(is_error(a, 501, "NotImplemented"), f"PutObjectLockConfiguration: {st(a)}")
    else:
        tally.twin_refused("PutObjectLockConfiguration (twin: PutBucketCors)", twin, a)
    return tally.outcome()


CORS = (b"<CORSConfiguration><CORSRule><AllowedOrigin>https://app.example.com</AllowedOrigin>"
        b"<AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>")


@probe("s3.error.cors-no-match-not-403")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "k.txt", b"hello")
    md5 = base64.b64encode(hashlib.md5(CORS).digest()).decode()
    p = t.request("PUT", b, query={"cors": ""}, body=CORS, headers={"Content-MD5": md5})
    if not ok2(p):
        raise Unjudgeable(f"PutBucketCors answered {st(p)}")

    def preflight(origin: str, method: str) -> Answer:
        return t.request("OPTIONS", b, "k.txt", sign=False,
                         headers={"Origin": origin, "Access-Control-Request-Method": method})

    # The twin shows the rule is in force: a preflight it matches is granted the origin.
    twin = preflight("https://app.example.com", "GET")
    if twin.header("access-control-allow-origin") not in ("https://app.example.com", "*"):
        raise Unjudgeable(f"a preflight the rule matches answered {st(twin)}, "
                          f"Access-Control-Allow-Origin {twin.header('access-control-allow-origin')!r}")
    tally = Tally()
    tally.lines.append(f"matching preflight: {twin.status}, Access-Control-Allow-Origin {twin.header('access-control-allow-origin')!r}")
    for what, origin, method in (("preflight from another origin", "https://elsewhere.example.net", "GET"),
                                 ("preflight for a method no rule allows", "https://app.example.com", "DELETE")):
        a = preflight(origin, method)
        tally.add(a.status != 403, f"{what}: {st(a)}, Access-Control-Allow-Origin {a.header('access-control-allow-origin')!r}")
    a = t.request("GET", b, "k.txt", headers={"Origin": "https://elsewhere.example.net"})
    tally.add(a.status != 403, f"signed GET with another Origin: {st(a)}")
    return tally.outcome()
