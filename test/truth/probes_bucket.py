"""Bucket-level behaviours (S3 behaviours 4-7, 16, and what Amazon S3 documents beside them):
stand-in reads answer a fresh bucket with a basic empty document; bucket encryption is AES256
only; unsupported operations and list parameters are 501 and never run as something else; x-id
and x-purpose change nothing; SSE-KMS and SSE-C are refused; bucket names follow the rules; XML
declarations are accepted, Error has no xmlns, XML answers are application/xml."""

import base64
import hashlib
import secrets

from truth import Answer, Target, Unjudgeable, accepted, bucket_gone, child_text, departs, holds, judge, local, probe, st as said



def md5_header(body: bytes) -> dict[str, str]:
    return {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}


def fresh_name(t: Target, tag: str) -> str:
    """A bucket name no one holds, registered for cleanup whether or not it gets created."""
    name = f"truth-{secrets.token_hex(4)}-{tag}"
    t.made.append(("bucket", name, None))
    return name


# Stand-ins (behaviour 4). A basic empty-bucket answer: 200, an XML document that is not an Error,
# whose elements are only those the operation's document may hold (so a listing taken for the call
# does not pass), holding nothing configured. SPEC names no document, and SDKs read the children
# whatever the root is called, so the root's name is reported, never judged.

def standin(t: Target, sub: str, op: str, allowed: set[str], empty):
    b = t.new_bucket()
    a = t.request("GET", b, query={sub: ""})
    root = a.xml()
    if a.status != 200 or root is None or a.root == "Error":
        return judge(False, f"{op} on a fresh bucket answered {said(a)}"
                     + ("" if root is not None or not a.body else " with a body that is not XML"))
    children = [local(c.tag) for c in root]
    foreign = sorted(set(children) - allowed)
    if foreign:
        return judge(False, f"{op} answered 200 with <{a.root}> holding {foreign}, elements no {op} "
                     "document has: another operation's answer")
    why_not_empty = empty(root)
    if why_not_empty:
        return judge(False, f"{op} answered 200 <{a.root}> but it is not an empty-bucket answer: {why_not_empty}")
    return holds(f"{op} on a fresh bucket answered 200 <{a.root}> with {children or 'no elements'}")


def none_of(*names):
    def check(root):
        present = [local(c.tag) for c in root if local(c.tag) in names]
        return f"it holds {present}" if present else None
    return check


@probe("s3.standin.get-bucket-acl")
def _(t: Target):
    def basic(root):
        return None  # any owner and grants the bucket has are its basic ACL
    return standin(t, "acl", "GetBucketAcl", {"Owner", "AccessControlList"}, basic)


@probe("s3.standin.get-bucket-versioning")
def _(t: Target):
    def never_enabled(root):
        enabled = [n for n in ("Status", "MfaDelete") if child_text(root, n) == "Enabled"]
        return f"{' and '.join(enabled)} Enabled" if enabled else None
    return standin(t, "versioning", "GetBucketVersioning", {"Status", "MfaDelete"}, never_enabled)


@probe("s3.standin.get-bucket-lifecycle")
def _(t: Target):
    return standin(t, "lifecycle", "GetBucketLifecycleConfiguration", {"Rule"}, none_of("Rule"))


@probe("s3.standin.get-bucket-replication")
def _(t: Target):
    return standin(t, "replication", "GetBucketReplication", {"Role", "Rule"}, none_of("Rule"))


@probe("s3.standin.get-bucket-tagging")
def _(t: Target):
    def no_tags(root):
        tags = [c for ts in root if local(ts.tag) == "TagSet" for c in ts]
        return f"its TagSet holds {len(tags)} tags" if tags else None
    return standin(t, "tagging", "GetBucketTagging", {"TagSet"}, no_tags)


@probe("s3.standin.get-object-lock")
def _(t: Target):
    def not_locked(root):
        if child_text(root, "ObjectLockEnabled") == "Enabled":
            return "ObjectLockEnabled is Enabled"
        return none_of("Rule")(root)
    return standin(t, "object-lock", "GetObjectLockConfiguration", {"ObjectLockEnabled", "Rule"}, not_locked)


# Bucket encryption (behaviour 5): supported; AES256 is the only value.

def encryption_body(algorithm: str) -> bytes:
    return (
        '<ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule>'
        f"<ApplyServerSideEncryptionByDefault><SSEAlgorithm>{algorithm}</SSEAlgorithm>"
        "</ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>"
    ).encode()


def put_encryption(t: Target, b: str, algorithm: str) -> Answer:
    body = encryption_body(algorithm)
    return t.request("PUT", b, query={"encryption": ""}, body=body, headers=md5_header(body))


def algorithms(a: Answer) -> list[str]:
    return [n.text or "" for n in a.all("Rule", "ApplyServerSideEncryptionByDefault", "SSEAlgorithm")]


@probe("s3.encryption.get")
def _(t: Target):
    b = t.new_bucket()
    a = t.request("GET", b, query={"encryption": ""})
    algs = algorithms(a)
    return judge(a.status == 200 and algs and set(algs) == {"AES256"},
                 f"GetBucketEncryption on a fresh bucket answered {said(a)}, SSEAlgorithm {algs}")


@probe("s3.encryption.put-aes256")
def _(t: Target):
    b = t.new_bucket()
    p = put_encryption(t, b, "AES256")
    g = t.request("GET", b, query={"encryption": ""})
    algs = algorithms(g)
    return judge(p.status == 200 and g.status == 200 and set(algs) == {"AES256"},
                 f"PutBucketEncryption AES256 answered {said(p)}; GetBucketEncryption then {said(g)}, SSEAlgorithm {algs}")


@probe("s3.encryption.put-other-rejected")
def _(t: Target):
    b = t.new_bucket()
    p = put_encryption(t, b, "AES256")
    seen, bad = [], []
    for alg in ("aws:kms", "aws:kms:dsse"):
        a = put_encryption(t, b, alg)
        seen.append(f"{alg}: {said(a)}")
        if not (400 <= a.status < 500 or a.status == 501):
            bad.append(f"PutBucketEncryption {alg} answered {said(a)}")
    if p.status != 200:
        # Refusing every algorithm proves nothing of AES256 being the only one; accepting another decides.
        if bad:
            return departs("; ".join(bad) + f" (AES256 itself answered {said(p)})")
        raise Unjudgeable(f"the valid twin, PutBucketEncryption AES256, answered {said(p)}; {', '.join(seen)}")
    g = t.request("GET", b, query={"encryption": ""})
    algs = algorithms(g)
    if g.status == 200 and set(algs) != {"AES256"}:
        bad.append(f"GetBucketEncryption afterwards reports {algs}")
    return judge(not bad, "; ".join(bad) or f"AES256 answered 200; {', '.join(seen)}; "
                 f"GetBucketEncryption afterwards {said(g)} {algs}")


@probe("s3.encryption.delete")
def _(t: Target):
    b = t.new_bucket()
    seen, bad = [], []
    d = t.request("DELETE", b, query={"encryption": ""})
    seen.append(f"on a fresh bucket {said(d)}")
    if d.status not in (200, 204):
        bad.append(f"DeleteBucketEncryption on a fresh bucket answered {said(d)}")
    # A 204 from a target that deleted the bucket itself is DeleteBucket's answer, not support.
    gone = bucket_gone(t, b)
    if gone:
        return departs(f"DeleteBucketEncryption on a fresh bucket answered {said(d)}, but {gone}: "
                       "carried out as DeleteBucket")
    # Supported means it also removes a configuration that was set, and the bucket stays one whose
    # encryption can be set again.
    p = put_encryption(t, b, "AES256")
    if p.status == 200:
        d = t.request("DELETE", b, query={"encryption": ""})
        gone = bucket_gone(t, b)
        again = put_encryption(t, b, "AES256")
        seen.append(f"after PutBucketEncryption AES256 {said(d)}, then PutBucketEncryption {said(again)}")
        if d.status not in (200, 204) or again.status != 200 or gone:
            bad.append(f"DeleteBucketEncryption after AES256 was set answered {said(d)}"
                       + (f", but {gone}" if gone else "") + f"; setting it again {said(again)}")
    else:
        seen.append(f"(PutBucketEncryption AES256 answered {said(p)}, so only the fresh bucket is judged)")
    return judge(not bad, "; ".join(bad) or "DeleteBucketEncryption answered " + "; ".join(seen))


# Unsupported operations (behaviour 6). The operations below are unsupported by SPEC's own words:
# object lock cannot be enabled (3), and versioning, replication and tagging are read-only
# stand-ins (4), so the calls that would set them are not implemented.

@probe("s3.unsupported.not-implemented")
def _(t: Target):
    b = t.new_bucket("ops")  # no objects in it: a target that does version it can still delete it
    # The valid twin: a supported configuration call of the same shape (PUT ?subresource, an XML body
    # with its MD5). A target answering 501 to that too shows nothing of which operations it lacks.
    cors = (b"<CORSConfiguration><CORSRule><AllowedOrigin>https://example.com</AllowedOrigin>"
            b"<AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>")
    twin = t.request("PUT", b, query={"cors": ""}, body=cors, headers=md5_header(cors))
    holder = t.new_bucket("obj")
    t.put(holder, "k.txt", b"kept")
    calls = [
        ("PutObjectLockConfiguration", "PUT", b, None, "object-lock",
         b"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>"),
        ("PutBucketVersioning", "PUT", b, None, "versioning",
         b"<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>"),
        ("PutBucketReplication", "PUT", b, None, "replication",
         b"<ReplicationConfiguration><Role>arn:aws:iam::123456789012:role/r</Role><Rule><Status>Enabled</Status>"
         b"<Prefix></Prefix><Destination><Bucket>arn:aws:s3:::elsewhere</Bucket></Destination></Rule>"
         b"</ReplicationConfiguration>"),
        ("PutBucketTagging", "PUT", b, None, "tagging",
         b"<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>"),
        ("PutObjectLegalHold", "PUT", holder, "k.txt", "legal-hold", b"<LegalHold><Status>OFF</Status></LegalHold>"),
    ]
    seen, bad = [], []
    for op, method, bucket, key, sub, body in calls:
        a = t.request(method, bucket, key, query={sub: ""}, body=body, headers=md5_header(body))
        seen.append(f"{op} {said(a)}")
        if a.status != 501 or a.code != "NotImplemented":
            bad.append(f"{op} answered {said(a)}")
    if twin.status != 200 and not bad:
        raise Unjudgeable("answered " + ", ".join(seen) + f", but PutBucketCors, which is supported, {said(twin)} too")
    return judge(not bad, ("; ".join(bad) if bad else "answered " + ", ".join(seen)) +
                 f" (PutBucketCors of the same bucket: {said(twin)})")


@probe("s3.unsupported.not-converted")
def _(t: Target):
    b = t.new_bucket()
    original = b"original-bytes"
    t.put(b, "keep.txt", original)
    empty = t.new_bucket("e")  # a bucket-level write a target supports (versioning) must not block cleanup
    bad = []
    # Writes: none may become a PutObject, a DeleteObject, a CreateBucket or a DeleteBucket.
    writes = [
        ("POST", b, "keep.txt", {"restore": ""}, b"<RestoreRequest><Days>1</Days></RestoreRequest>", "RestoreObject"),
        ("PUT", b, "keep.txt", {"tagging": ""},
         b"<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>", "PutObjectTagging"),
        ("DELETE", b, "keep.txt", {"tagging": ""}, b"", "DeleteObjectTagging"),
        ("POST", b, "keep.txt", {"select": "", "select-type": "2"},
         b"<SelectObjectContentRequest><Expression>select * from s3object</Expression><ExpressionType>SQL"
         b"</ExpressionType><InputSerialization><CSV/></InputSerialization><OutputSerialization><CSV/>"
         b"</OutputSerialization></SelectObjectContentRequest>", "SelectObjectContent"),
        ("PUT", empty, None, {"versioning": ""},
         b"<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>", "PutBucketVersioning"),
        ("DELETE", b, None, {"tagging": ""}, b"", "DeleteBucketTagging"),
    ]
    for method, bucket, key, query, body, op in writes:
        a = t.request(method, bucket, key, query=query, body=body)
        if a.code in ("BucketAlreadyExists", "BucketAlreadyOwnedByYou", "BucketNotEmpty"):
            bad.append(f"{op} answered {said(a)}: carried out as {'DeleteBucket' if a.code == 'BucketNotEmpty' else 'CreateBucket'}")
    # Reads of an object: none may be answered with the object's bytes (a GetObject).
    for query, headers, op in (({"torrent": ""}, {}, "GetObjectTorrent"),
                               ({"attributes": ""}, {"x-amz-object-attributes": "ETag"}, "GetObjectAttributes")):
        a = t.request("GET", b, "keep.txt", query=query, headers=headers)
        if a.status == 200 and a.body == original:
            bad.append(f"{op} answered 200 with the object's bytes: carried out as GetObject")
    # Reads of a bucket: none may be answered with a listing (a ListObjects).
    for sub in ("accelerate", "requestPayment", "logging", "ownershipControls", "intelligent-tiering", "metrics"):
        query = {sub: "", "id": "x"} if sub in ("intelligent-tiering", "metrics") else {sub: ""}
        a = t.request("GET", b, query=query)
        if a.root == "ListBucketResult":
            bad.append(f"GET ?{sub} answered {a.status} <ListBucketResult>: carried out as ListObjects")
    g = t.request("GET", b, "keep.txt")
    if g.status != 200 or g.body != original:
        bad.append(f"the object afterwards answers {said(g)} body {g.body[:30]!r}")
    lst = t.request("GET", b, query={"list-type": "2"})
    keys = [k.text for k in lst.all("Contents", "Key")]
    if keys != ["keep.txt"]:
        bad.append(f"the bucket afterwards lists {keys}")
    return judge(not bad, "; ".join(bad) or
                 "no unsupported call changed the object or the bucket, none was answered as GetObject, "
                 "ListObjects, CreateBucket or DeleteBucket would answer")


@probe("s3.unsupported.list-params")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "k.txt", b"x")
    bad, seen, undecided = [], [], []
    for version, base in (("ListObjectsV2", {"list-type": "2"}), ("ListObjects", {})):
        twin = t.request("GET", b, query=base)
        for param, value in (("truth-unsupported", "1"), ("allow-unordered", "true")):
            a = t.request("GET", b, query={**base, param: value})
            seen.append(f"{version} {param}: {said(a)}")
            if twin.status != 200:
                # Refused with the listing itself, the 501 proves nothing; a listing served with it departs.
                if accepted(a):
                    bad.append(f"{version} with {param}={value} answered {said(a)} (without it: {said(twin)})")
                else:
                    undecided.append(f"{version} with {param}={value} answered {said(a)}, but without it {said(twin)}")
            elif a.status != 501:
                bad.append(f"{version} with {param}={value} answered {said(a)}")
    if not bad and undecided:
        raise Unjudgeable("; ".join(undecided))
    return judge(not bad, "; ".join(bad) or "the same listings without the parameter answered 200; " + ", ".join(seen))


# Ignored parameters (behaviour 7).

@probe("s3.params.x-id-ignored")
def _(t: Target):
    b = t.new_bucket()
    bad = []
    a = t.request("PUT", b, "x.txt", query={"x-id": "PutObject"}, body=b"with-x-id")
    if a.status != 200:
        bad.append(f"PutObject ?x-id=PutObject answered {said(a)}")
    a = t.request("GET", b, "x.txt", query={"x-id": "DeleteObject"})
    if a.status != 200 or a.body != b"with-x-id":
        bad.append(f"GetObject ?x-id=DeleteObject answered {said(a)} body {a.body[:20]!r}")
    a = t.request("HEAD", b, "x.txt", query={"x-id": "DeleteObject"})
    if a.status != 200:
        bad.append(f"HeadObject ?x-id=DeleteObject answered {a.status}")
    a = t.request("GET", b, query={"list-type": "2", "x-id": "DeleteObjects"})
    keys = [k.text for k in a.all("Contents", "Key")]
    if a.status != 200 or keys != ["x.txt"]:
        bad.append(f"ListObjectsV2 ?x-id=DeleteObjects answered {said(a)} keys {keys}")
    a = t.request("GET", None, query={"x-id": "ListBuckets"})
    if a.status != 200 or b not in [n.text for n in a.all("Buckets", "Bucket", "Name")]:
        bad.append(f"ListBuckets ?x-id=ListBuckets answered {said(a)}")
    a = t.request("DELETE", b, "x.txt", query={"x-id": "GetObject"})
    g = t.request("GET", b, "x.txt")
    if a.status != 204 or g.status != 404:
        bad.append(f"DeleteObject ?x-id=GetObject answered {said(a)} and the object then answers {said(g)}")
    return judge(not bad, "; ".join(bad) or
                 "PutObject, GetObject, HeadObject, ListObjectsV2, ListBuckets and DeleteObject each did what "
                 "their method and path say whatever x-id named")


@probe("s3.params.x-purpose-ignored")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "p.txt", b"purpose")
    bad = []
    a = t.request("PUT", b, "q.txt", body=b"written", headers={"x-purpose": "preview"})
    if a.status != 200:
        bad.append(f"PutObject with header x-purpose answered {said(a)}")
    for how, query, headers in (("header", {}, {"x-purpose": "preview"}), ("query", {"x-purpose": "preview"}, {})):
        a = t.request("GET", b, "p.txt", query=query, headers=headers)
        if a.status != 200 or a.body != b"purpose":
            bad.append(f"GetObject with x-purpose in the {how} answered {said(a)} body {a.body[:20]!r}")
        a = t.request("HEAD", b, "p.txt", query=query, headers=headers)
        if a.status != 200:
            bad.append(f"HeadObject with x-purpose in the {how} answered {a.status}")
        a = t.request("GET", b, query={"list-type": "2", **query}, headers=headers)
        keys = sorted(k.text for k in a.all("Contents", "Key"))
        if a.status != 200 or keys != ["p.txt", "q.txt"]:
            bad.append(f"ListObjectsV2 with x-purpose in the {how} answered {said(a)} keys {keys}")
    return judge(not bad, "; ".join(bad) or
                 "PutObject, GetObject, HeadObject and ListObjectsV2 with x-purpose (header and query) "
                 "answered as without it")


# Server-side encryption of objects (behaviours 5 and 6; Amazon S3's documented headers).

SSE_C = {
    "x-amz-server-side-encryption-customer-algorithm": "AES256",
    "x-amz-server-side-encryption-customer-key": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
    "x-amz-server-side-encryption-customer-key-md5": "hRasmdxgYDKV3nvbahU1MA==",
}


def upload_id(a: Answer) -> str | None:
    return a.text("UploadId") if a.root == "InitiateMultipartUploadResult" else None


def abort(t: Target, b: str, key: str, uid: str | None) -> None:
    if uid:
        t.request("DELETE", b, key, query={"uploadId": uid})


@probe("s3.sse.aes256")
def _(t: Target):
    b = t.new_bucket()
    aes = {"x-amz-server-side-encryption": "AES256"}
    bad = []
    p = t.request("PUT", b, "aes.txt", body=b"at-rest", headers=aes)
    if p.status != 200:
        return judge(False, f"PutObject with x-amz-server-side-encryption AES256 answered {said(p)}")
    h = t.request("HEAD", b, "aes.txt")
    g = t.request("GET", b, "aes.txt")
    c = t.request("POST", b, "aes-upload.bin", query={"uploads": ""}, headers=aes)
    abort(t, b, "aes-upload.bin", upload_id(c))
    for label, a in (("PutObject", p), ("HeadObject", h), ("GetObject", g), ("CreateMultipartUpload", c)):
        value = a.header("x-amz-server-side-encryption")
        if a.status != 200 or value != "AES256":
            bad.append(f"{label} answered {said(a)} with x-amz-server-side-encryption {value!r}")
    return judge(not bad, "; ".join(bad) or
                 "PutObject, HeadObject, GetObject and CreateMultipartUpload all answered 200 with "
                 "x-amz-server-side-encryption AES256")


@probe("s3.sse.unsupported-not-implemented")
def _(t: Target):
    b = t.new_bucket()
    twin = t.request("PUT", b, "twin.txt", body=b"secret", headers={"x-amz-server-side-encryption": "AES256"})
    bad, seen = [], []
    kinds = (("SSE-KMS", {"x-amz-server-side-encryption": "aws:kms"}),
             ("SSE-KMS with a key id", {"x-amz-server-side-encryption": "aws:kms",
                                        "x-amz-server-side-encryption-aws-kms-key-id": "alias/truth"}),
             ("SSE-C", SSE_C))
    for i, (label, headers) in enumerate(kinds):
        key = f"refused-{i}.txt"
        a = t.request("PUT", b, key, body=b"secret", headers=headers)
        seen.append(f"PutObject {label} {said(a)}")
        if a.status != 501 or a.code != "NotImplemented":
            bad.append(f"PutObject with {label} answered {said(a)}")
        h = t.request("HEAD", b, key)
        if h.status != 404:
            bad.append(f"after PutObject with {label}, HeadObject answered {h.status} (stored)")
        c = t.request("POST", b, f"upload-{i}.bin", query={"uploads": ""}, headers=headers)
        seen.append(f"CreateMultipartUpload {label} {said(c)}")
        uid = upload_id(c)
        if c.status != 501 or c.code != "NotImplemented" or uid:
            bad.append(f"CreateMultipartUpload with {label} answered {said(c)}{' with an UploadId' if uid else ''}")
        abort(t, b, f"upload-{i}.bin", uid)
    if twin.status != 200:
        # The twin refused, a refusal proves nothing; a request carried out or a key stored departs.
        carried = [x for x in bad if "answered 200" in x or "(stored)" in x]
        if carried:
            return departs("; ".join(carried) + f" (PutObject with SSE AES256: {said(twin)})")
        raise Unjudgeable(f"the valid twin, PutObject with SSE AES256, answered {said(twin)}; {', '.join(seen)}")
    return judge(not bad, "; ".join(bad) or "PutObject with SSE AES256 answered 200; " + ", ".join(seen) +
                 "; nothing refused was stored")


# Bucket names (Amazon S3's naming rules).

@probe("s3.bucket.name-rules")
def _(t: Target):
    prefix = f"truth-{secrets.token_hex(4)}"
    ok = fresh_name(t, "ok")
    twin = t.request("PUT", ok)
    twin_ok = twin.status == 200 and t.request("HEAD", ok).status == 200
    bad, seen = [], []
    for label, name in (("upper case", f"{prefix}-UPPER"), ("underscore", f"{prefix}-under_score"),
                        ("64 characters", (prefix + "-" + "x" * 64)[:64])):
        t.made.append(("bucket", name, None))
        a = t.request("PUT", name)
        h = t.request("HEAD", name)
        seen.append(f"{label}: {said(a)}")
        if a.status != 400 or a.code != "InvalidBucketName":
            bad.append(f"CreateBucket of a name with {label} answered {said(a)}")
        if h.status == 200:
            bad.append(f"the {label} name is a bucket afterwards (HeadBucket 200)")
    if not twin_ok:
        # The valid name refused too, a refusal proves nothing; an invalid name made a bucket departs.
        made = [x for x in bad if "afterwards" in x]
        if made:
            return departs("; ".join(made) + f" (the valid name {ok}: {said(twin)})")
        raise Unjudgeable(f"CreateBucket of the valid name {ok} answered {said(twin)} (or HeadBucket did not find it)")
    return judge(not bad, "; ".join(bad) or f"the valid name was created; {', '.join(seen)}; none exists afterwards")


# XML (behaviour 16).

DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'


@probe("s3.xml.declaration-accepted")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "gone.txt", b"x")
    bad = []
    # DeleteObjects
    body = DECLARATION + b"<Delete><Object><Key>gone.txt</Key></Object></Delete>"
    a = t.request("POST", b, query={"delete": ""}, body=body, headers=md5_header(body))
    deleted = [k.text for k in a.all("Deleted", "Key")]
    g = t.request("HEAD", b, "gone.txt")
    if a.status != 200 or deleted != ["gone.txt"] or g.status != 404:
        bad.append(f"DeleteObjects with a declaration answered {said(a)}, Deleted {deleted}; HEAD then {g.status}")
    # CompleteMultipartUpload
    c = t.request("POST", b, "whole.bin", query={"uploads": ""})
    uid = upload_id(c)
    if not uid:
        if bad:
            return judge(False, "; ".join(bad) + f" (CreateMultipartUpload answered {said(c)}: Complete not tried)")
        raise Unjudgeable(f"CreateMultipartUpload answered {said(c)}")
    p = t.request("PUT", b, "whole.bin", query={"partNumber": "1", "uploadId": uid}, body=b"one-part")
    etag = p.header("etag")
    if p.status != 200 or not etag:
        abort(t, b, "whole.bin", uid)
        if bad:
            return judge(False, "; ".join(bad) + f" (UploadPart answered {said(p)}: Complete not tried)")
        raise Unjudgeable(f"UploadPart answered {said(p)}")
    body = DECLARATION + (f"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>{etag}</ETag>"
                          "</Part></CompleteMultipartUpload>").encode()
    a = t.request("POST", b, "whole.bin", query={"uploadId": uid}, body=body)
    g = t.request("GET", b, "whole.bin")
    if a.status != 200 or a.root == "Error" or g.body != b"one-part":
        bad.append(f"CompleteMultipartUpload with a declaration answered {said(a)}; GET then {said(g)}")
        abort(t, b, "whole.bin", uid)
    # PutBucketCors
    body = DECLARATION + (b"<CORSConfiguration><CORSRule><AllowedOrigin>https://example.com</AllowedOrigin>"
                          b"<AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>")
    a = t.request("PUT", b, query={"cors": ""}, body=body, headers=md5_header(body))
    g = t.request("GET", b, query={"cors": ""})
    origins = [o.text for o in g.all("CORSRule", "AllowedOrigin")]
    if a.status != 200 or origins != ["https://example.com"]:
        bad.append(f"PutBucketCors with a declaration answered {said(a)}; GetBucketCors then {said(g)} origins {origins}")
    return judge(not bad, "; ".join(bad) or
                 "DeleteObjects, CompleteMultipartUpload and PutBucketCors with an XML declaration were accepted "
                 "and took effect")


def error_answers(t: Target) -> list[tuple[str, Answer]]:
    """Requests that fail in several ways, each answered with a body (GET, not HEAD)."""
    b = t.new_bucket()
    t.put(b, "here.txt", b"x")
    bad_xml = b"<Delete><Object><Key>a</Key>"
    invalid = "truth_" + secrets.token_hex(3).upper()
    t.made.append(("bucket", invalid, None))
    return [
        ("GetObject of a missing key", t.request("GET", b, "absent.txt")),
        ("ListObjectsV2 of a missing bucket", t.request("GET", b + "-absent", query={"list-type": "2"})),
        ("ListParts of a missing upload", t.request("GET", b, "here.txt", query={"uploadId": "truth-no-such-upload"})),
        ("DeleteObjects with a malformed body", t.request("POST", b, query={"delete": ""}, body=bad_xml,
                                                          headers=md5_header(bad_xml))),
        ("CreateBucket of an invalid name", t.request("PUT", invalid)),
    ]


@probe("s3.xml.error-no-xmlns")
def _(t: Target):
    judged, bad, skipped = [], [], []
    for label, a in error_answers(t):
        if a.status < 300:
            skipped.append(f"{label} answered {a.status}")
            continue
        root = a.xml()
        if root is None or local(root.tag) != "Error":
            skipped.append(f"{label} answered {a.status} without an XML Error body")
            continue
        opening = a.body.split(b"<Error", 1)[1].split(b">", 1)[0] if b"<Error" in a.body else b""
        ns = root.tag[1:].split("}")[0] if root.tag.startswith("{") else None
        judged.append(f"{label} ({said(a)})")
        if ns is not None or b"xmlns" in opening:
            bad.append(f"{label}: <Error{opening.decode(errors='replace')}>")
    if not judged:
        raise Unjudgeable("no request was answered with an XML Error body: " + "; ".join(skipped))
    note = f" (not judged: {'; '.join(skipped)})" if skipped else ""
    return judge(not bad, ("Error with xmlns: " + "; ".join(bad) if bad else
                           "no xmlns on <Error> in " + ", ".join(judged)) + note)


@probe("s3.xml.content-type")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "k.txt", b"x")
    answers = [
        ("ListBuckets", t.request("GET", None)),
        ("ListObjectsV2", t.request("GET", b, query={"list-type": "2"})),
        ("ListObjects", t.request("GET", b)),
        ("GetBucketLocation", t.request("GET", b, query={"location": ""})),
        ("GetObject of a missing key (error)", t.request("GET", b, "absent.txt")),
    ]
    c = t.request("POST", b, "u.bin", query={"uploads": ""})
    answers.append(("CreateMultipartUpload", c))
    abort(t, b, "u.bin", upload_id(c))
    body = b"<Delete><Object><Key>k.txt</Key></Object></Delete>"
    answers.append(("DeleteObjects", t.request("POST", b, query={"delete": ""}, body=body, headers=md5_header(body))))
    judged, bad = [], []
    for label, a in answers:
        if a.xml() is None:
            continue
        ctype = a.header("content-type")
        judged.append(f"{label} {ctype!r}")
        if not ctype or ctype.split(";")[0].strip().lower() != "application/xml":
            bad.append(f"{label} answered {a.status} XML with Content-Type {ctype!r}")
    if not judged:
        raise Unjudgeable("no answer carried an XML body")
    return judge(not bad, "; ".join(bad) or "every XML answer was application/xml: " + ", ".join(judged))
