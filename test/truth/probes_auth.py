"""Authentication (SPEC "Authentication"): requests are SigV4-signed and an unsigned or
unparseable one to a private bucket is refused; a signature that does not match is
SignatureDoesNotMatch; no answer carries the secret; a request with both Transfer-Encoding and
Content-Length is declined and has no effect."""

import hashlib
import re

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from truth import Answer, NoAnswer, Target, Unjudgeable, departs, judge, probe, st as said




def signed_headers(t: Target, method: str, bucket: str, key: str, body: bytes = b"",
                   headers: dict[str, str] | None = None) -> dict[str, str]:
    """The headers botocore's SigV4 signer gives a path-style request (the key needs no quoting)."""
    req = AWSRequest(method=method, url=f"{t.endpoint.rstrip('/')}/{bucket}/{key}", data=body, headers=dict(headers or {}))
    req.headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    S3SigV4Auth(Credentials(t.key, t.secret), "s3", t.region).add_auth(req)
    return dict(req.headers.items())


@probe("s3.auth.sigv4")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "private.txt", b"private")
    get = t.request("GET", b, "private.txt")
    lst = t.request("GET", b, query={"list-type": "2"})
    twins_ok = get.status == 200 and get.body == b"private" and lst.status == 200
    bad, seen = [], []

    def refused(label: str, a: Answer, allowed=(401, 403)):
        seen.append(f"{label} {said(a)}")
        if a.status not in allowed:
            bad.append(f"{label} answered {said(a)}" + (f" body {a.body[:30]!r}" if a.status < 300 else ""))

    refused("unsigned GetObject", t.request("GET", b, "private.txt", sign=False))
    refused("unsigned ListObjectsV2", t.request("GET", b, query={"list-type": "2"}, sign=False))
    refused("unsigned PutObject", t.request("PUT", b, "private.txt", body=b"overwritten", sign=False))
    refused("unsigned DeleteObject", t.request("DELETE", b, "private.txt", sign=False))
    refused("GetObject with Authorization: garbage",
            t.request("GET", b, "private.txt", sign=False, raw_headers={"Authorization": "garbage"}),
            allowed=range(400, 500))
    after = t.request("GET", b, "private.txt")
    if after.status != 200 or after.body != b"private":
        bad.append(f"the object afterwards answers {said(after)} body {after.body[:30]!r}: an unsigned write took effect")
    if not twins_ok:
        # Signed requests refused too, a refusal of unsigned ones proves nothing; one served departs.
        served = [x for x in bad if " answered 2" in x]
        if served:
            return departs("; ".join(served) + f" (signed GetObject {said(get)}, ListObjectsV2 {said(lst)})")
        raise Unjudgeable(f"signed GetObject answered {said(get)}, signed ListObjectsV2 {said(lst)}; " + ", ".join(seen))
    return judge(not bad, "; ".join(bad) or
                 "signed GetObject and ListObjectsV2 answered 200; " + ", ".join(seen) + "; the object is unchanged")


@probe("s3.auth.signature-mismatch")
def _(t: Target):
    b = t.new_bucket()
    t.put(b, "private.txt", b"private")
    twin = t.request("GET", b, "private.txt")
    wrong = (t.key, t.secret + "-wrong")
    answers = [
        ("GetObject signed with a wrong secret", t.request("GET", b, "private.txt", credentials=wrong)),
        ("PutObject signed with a wrong secret",
         t.request("PUT", b, "private.txt", body=b"tampered", credentials=wrong)),
    ]
    # A signed header changed after signing.
    hdrs = signed_headers(t, "GET", b, "private.txt", headers={"x-amz-meta-probe": "signed"})
    hdrs["x-amz-meta-probe"] = "changed"
    answers.append(("GetObject whose signed x-amz-meta header was changed",
                    t.send("GET", f"/{b}/private.txt", hdrs, b"")))
    # A well-formed Authorization header whose signature is 64 zeros.
    hdrs = signed_headers(t, "GET", b, "private.txt")
    hdrs["Authorization"] = re.sub(r"Signature=[0-9a-f]+", "Signature=" + "0" * 64, hdrs["Authorization"])
    answers.append(("GetObject with a zeroed signature", t.send("GET", f"/{b}/private.txt", hdrs, b"")))
    # A presigned URL whose signature was changed.
    url = t.presign("GET", b, "private.txt")
    answers.append(("presigned GetObject with a changed signature",
                    t.get_url(re.sub(r"X-Amz-Signature=[0-9a-f]+", "X-Amz-Signature=" + "0" * 64, url))))
    bad = [f"{label} answered {said(a)}" for label, a in answers
           if a.code != "SignatureDoesNotMatch" or not 400 <= a.status < 500]
    after = t.request("GET", b, "private.txt")
    if after.body != b"private":
        bad.append(f"the object afterwards holds {after.body[:30]!r}: the wrongly signed PUT took effect")
    if twin.status != 200:
        # The correct signature refused too, a refusal proves nothing; a wrong one served departs.
        served = [f"{label} answered {said(a)}" for label, a in answers if 200 <= a.status < 300]
        if served:
            return departs("; ".join(served) + f" (the correctly signed GetObject: {said(twin)})")
        raise Unjudgeable(f"the correctly signed GetObject answered {said(twin)}; "
                          + ", ".join(f"{label}: {said(a)}" for label, a in answers))
    return judge(not bad, "; ".join(bad) or
                 "the correctly signed GET answered 200; " + ", ".join(f"{label}: {said(a)}" for label, a in answers) +
                 "; the object is unchanged")


@probe("s3.auth.secret-not-echoed")
def _(t: Target):
    b = t.new_bucket()
    answers = [
        ("PutObject", t.request("PUT", b, "s.txt", body=b"x")),
        ("GetObject", t.request("GET", b, "s.txt")),
        ("GetObject of a missing key", t.request("GET", b, "absent.txt")),
        ("ListObjectsV2", t.request("GET", b, query={"list-type": "2"})),
        ("ListBuckets", t.request("GET", None)),
        ("GetObject signed with a wrong secret", t.request("GET", b, "s.txt", credentials=(t.key, t.secret + "x"))),
        ("unsigned GetObject", t.request("GET", b, "s.txt", sign=False)),
        ("GetObject with a garbage Authorization",
         t.request("GET", b, "s.txt", sign=False, raw_headers={"Authorization": "AWS4-HMAC-SHA256 garbage"})),
        ("presigned GetObject", t.get_url(t.presign("GET", b, "s.txt", expires=60))),
        ("presigned GetObject with a changed signature",
         t.get_url(re.sub(r"X-Amz-Signature=[0-9a-f]+", "X-Amz-Signature=" + "0" * 64,
                          t.presign("GET", b, "s.txt", expires=60)))),
    ]
    secret = t.secret
    bad = []
    for label, a in answers:
        text = "\n".join(f"{k}: {v}" for k, v in a.headers.items()) + "\n" + a.body.decode("utf-8", "replace")
        if t.key == secret:
            # The access key id may be echoed (AWSAccessKeyId, Credential=); where it equals the secret,
            # those echoes are not the secret's.
            text = re.sub(rf"(AWSAccessKeyId>|Credential=){re.escape(t.key)}", "", text)
        for form in (secret, "AWS4" + secret):
            if form in text:
                bad.append(f"{label} (status {a.status}) carries the secret{' as AWS4<secret>' if form != secret else ''}")
                break
    # Never print the secret itself.
    t.transcript = [line.replace(secret, "<secret>") for line in t.transcript]
    note = " (the access key id equals the secret here, so echoes of the key id were set aside)" if t.key == secret else ""
    return judge(not bad, "; ".join(bad) or
                 f"none of {len(answers)} answers (successes, errors, signature mismatch, unsigned, presigned) "
                 f"carries the secret access key in a header or the body{note}")


def raw_put(t: Target, bucket: str, key: str, body: bytes, te_first: bool | None) -> tuple[int | None, str]:
    """A PUT signed for `body`, sent with Content-Length only (te_first None) or with both framings,
    Transfer-Encoding first or last; the body then goes chunked. Returns (status or None, what happened)."""
    hdrs = signed_headers(t, "PUT", bucket, key, body)
    wire = body
    if te_first is None:
        hdrs["Content-Length"] = str(len(body))
    else:
        framing = [("Transfer-Encoding", "chunked"), ("Content-Length", str(len(body)))]
        for k, v in framing if te_first else reversed(framing):
            hdrs[k] = v
        wire = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    try:
        a = t.send("PUT", f"/{bucket}/{key}", hdrs, wire)
    except NoAnswer as e:
        if e.__cause__ is None:
            raise  # throttled: no answer to judge, which is not a declined request
        t.note(f"> PUT /{bucket}/{key} with Transfer-Encoding and Content-Length")
        t.note(f"< no answer: {type(e.__cause__).__name__} {e.__cause__}")
        return None, f"closed without an answer ({type(e.__cause__ or e).__name__})"
    return a.status, said(a)


@probe("s3.auth.te-cl-declined")
def _(t: Target):
    b = t.new_bucket()
    status, twin_how = raw_put(t, b, "k.txt", b"hello", None)
    twin_ok = status == 200
    bad, seen = [], []
    # Over an existing object (Content-Length first), and to a new key (Transfer-Encoding first).
    for key, te_first, order in (("k.txt", False, "Content-Length first"), ("new.txt", True, "Transfer-Encoding first")):
        status, how = raw_put(t, b, key, b"HELLO", te_first)
        seen.append(f"{order}: {how}")
        if status is not None and not 400 <= status < 500:
            bad.append(f"PUT {key} with both headers ({order}) answered {how}")
    g1 = t.request("GET", b, "k.txt")
    g2 = t.request("GET", b, "new.txt")
    if g1.body != b"hello":
        bad.append(f"k.txt afterwards holds {g1.body[:20]!r}: the declined PUT took effect")
    if g2.status != 404:
        bad.append(f"new.txt afterwards answers {said(g2)}: the declined PUT stored it")
    if not twin_ok:
        # Content-Length alone refused too, a refusal proves nothing; both framings carried out depart.
        carried = [x for x in bad if "answered 2" in x or "stored it" in x]
        if carried:
            return departs("; ".join(carried) + f" (with Content-Length only: {twin_how})")
        raise Unjudgeable(f"the same PUT with Content-Length only answered {twin_how}; " + ", ".join(seen))
    return judge(not bad, "; ".join(bad) or
                 "with Content-Length only the PUT answered 200; with both headers " + ", ".join(seen) +
                 "; neither stored anything")
