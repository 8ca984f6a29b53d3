"""CORS (S3 behaviour 14): PutBucketCors validation and the answers to preflight and actual requests.

Preflights are unsigned OPTIONS requests, as browsers send them. A browser takes a preflight as
granted only when its status is 2xx, Access-Control-Allow-Origin is the origin or *, the method
is in Access-Control-Allow-Methods and every requested header is in Access-Control-Allow-Headers
(names compared case-insensitively); an allowed origin may be echoed or answered with *.
"""

from __future__ import annotations

import base64
import hashlib
import urllib.parse

from botocore.auth import S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from truth import Answer, Target, Unjudgeable, accepted, judge, probe, st

APP = "https://app.example.com"


def rule(origins: list[str], methods: list[str], headers: list[str] = (), expose: list[str] = (),
         extra: str = "") -> str:
    return ("<CORSRule>" + "".join(f"<AllowedOrigin>{o}</AllowedOrigin>" for o in origins)
            + "".join(f"<AllowedMethod>{m}</AllowedMethod>" for m in methods)
            + "".join(f"<AllowedHeader>{h}</AllowedHeader>" for h in headers)
            + "".join(f"<ExposeHeader>{h}</ExposeHeader>" for h in expose) + extra + "</CORSRule>")


def config(*rules: str, extra: str = "") -> str:
    return "<CORSConfiguration>" + "".join(rules) + extra + "</CORSConfiguration>"


def put_cors(t: Target, b: str, doc: str) -> Answer:
    body = doc.encode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return t.request("PUT", b, query={"cors": ""}, body=body, headers={"Content-MD5": md5})


def cors_bucket(t: Target, doc: str, tag: str = "cors") -> str:
    """A bucket holding k.txt ("cors") with the CORS configuration `doc`."""
    b = t.new_bucket(tag)
    a = put_cors(t, b, doc)
    if not accepted(a):
        raise Unjudgeable(f"PutBucketCors of a valid configuration answered {st(a)}")
    t.put(b, "k.txt", b"cors")
    return b


def origins_in(a: Answer) -> list[str]:
    """The AllowedOrigin values GetBucketCors answers."""
    return [(o.text or "").strip() for o in a.all("CORSRule", "AllowedOrigin")]


def preflight(t: Target, b: str, key: str | None, origin: str, method: str, req_headers: str | None = None) -> Answer:
    h = {"Origin": origin, "Access-Control-Request-Method": method}
    if req_headers is not None:
        h["Access-Control-Request-Headers"] = req_headers
    return t.request("OPTIONS", b, key, headers=h, sign=False)


def listed(value: str | None) -> list[str]:
    return [v.strip().lower() for v in (value or "").split(",") if v.strip()]


def granted(a: Answer, origin: str, method: str, req_headers: str | None = None) -> bool:
    """Whether a browser would take this preflight answer as permission."""
    if not 200 <= a.status < 300 or a.header("access-control-allow-origin") not in (origin, "*"):
        return False
    methods = listed(a.header("access-control-allow-methods"))
    if method.lower() not in methods and "*" not in methods:
        return False
    allowed = listed(a.header("access-control-allow-headers"))
    return all(h in allowed or "*" in allowed for h in listed(req_headers))


def show(a: Answer) -> str:
    parts = [str(a.status)]
    for h in ("access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers"):
        if a.header(h) is not None:
            parts.append(f"{h.split('-', 2)[2]} {a.header(h)!r}")
    return ", ".join(parts)


def presign(t: Target, method: str, bucket: str, key: str, expires: int = 300) -> str:
    """A presigned URL as the AWS SDKs make it (S3 query signing: UNSIGNED-PAYLOAD)."""
    url = f"{t.endpoint.rstrip('/')}/{bucket}/{urllib.parse.quote(key, safe='/~')}"
    req = AWSRequest(method=method, url=url)
    S3SigV4QueryAuth(Credentials(t.key, t.secret), "s3", t.region, expires=expires).add_auth(req)
    return req.url


def refuses_each(t: Target, b: str, docs: list[tuple[str, str]], ok: bool, seen: list[str]):
    """Each document refused (SPEC names no status: a 4xx, or 501 as SPEC refuses what is not
    implemented; another 5xx is a failure, not a refusal), and the configuration stored before still
    the one read back."""
    for label, doc in docs:
        a = put_cors(t, b, doc)
        ok &= 400 <= a.status < 500 or a.status == 501
        seen.append(f"{label}: {st(a)}")
    kept = origins_in(t.request("GET", b, query={"cors": ""}))
    ok &= kept == [APP]
    seen.append(f"GetBucketCors afterwards: AllowedOrigin {kept}")
    return judge(ok, "; ".join(seen))


def twin_refused(t: Target, b: str, twin: Answer, what: str, docs: list[tuple[str, str]]):
    """The valid twin refused: refusing the others proves nothing, but accepting one departs."""
    seen = [f"{what}: {st(twin)}"]
    carried = []
    for label, doc in docs:
        a = put_cors(t, b, doc)
        seen.append(f"{label}: {st(a)}")
        if accepted(a):
            carried.append(f"{label}: {st(a)}")
    if carried:
        return judge(False, "; ".join(carried) + f" ({what}: {st(twin)})")
    raise Unjudgeable("; ".join(seen))


@probe("s3.cors.valid-origins")
def _(t: Target):
    b = t.new_bucket("cors")
    ok, seen = True, []
    for origin in ["*", "http://localhost:3000", "https://*.example.com", APP]:
        a = put_cors(t, b, config(rule([origin], ["GET"])))
        if not accepted(a):
            ok = False
        seen.append(f"valid {origin!r}: {st(a)}")
    if not ok:
        return judge(False, "; ".join(seen))
    bad = ["not an origin", "https://app example.com", "://no-scheme"]
    return refuses_each(t, b, [(f"invalid {o!r}", config(rule([o], ["GET"]))) for o in bad], ok, seen)


@probe("s3.cors.unknown-keys")
def _(t: Target):
    b = t.new_bucket("cors")
    twin = put_cors(t, b, config(rule([APP], ["GET"])))
    docs = [
        ("<Bogus> in a rule", config(rule(["*"], ["GET"], extra="<Bogus>1</Bogus>"))),
        ("<AllowedOrigins> (plural) in a rule", config(rule(["*"], ["GET"], extra="<AllowedOrigins>*</AllowedOrigins>"))),
        ("<Extra> beside the rules", config(rule(["*"], ["GET"]), extra="<Extra>1</Extra>")),
    ]
    if not accepted(twin):
        return twin_refused(t, b, twin, "PutBucketCors of the valid twin", docs)
    return refuses_each(t, b, docs, True, [f"valid twin: {st(twin)}"])


@probe("s3.cors.empty-allowed-header")
def _(t: Target):
    b = t.new_bucket("cors")
    twin = put_cors(t, b, config(rule([APP], ["GET"], ["x-custom"])))
    docs = [
        ("<AllowedHeader></AllowedHeader>", config(rule(["*"], ["GET"], [""]))),
        ("<AllowedHeader/>", config(rule(["*"], ["GET"], extra="<AllowedHeader/>"))),
        ("x-a and an empty one", config(rule(["*"], ["GET"], ["x-a", ""]))),
    ]
    if not accepted(twin):
        return twin_refused(t, b, twin, "PutBucketCors with AllowedHeader x-custom", docs)
    return refuses_each(t, b, docs, True, [f"AllowedHeader x-custom: {st(twin)}"])


@probe("s3.cors.allowed-headers-case")
def _(t: Target):
    b = cors_bucket(t, config(rule([APP], ["GET", "PUT"], ["X-Custom", "x-lower"])))
    ok, seen = True, []
    for asked in ["x-custom", "X-CUSTOM", "X-Custom", "X-Lower", "x-custom, X-LOWER"]:
        a = preflight(t, b, "k.txt", APP, "GET", asked)
        good = granted(a, APP, "GET", asked)
        ok &= good
        seen.append(f"Access-Control-Request-Headers {asked!r}: {show(a)}{'' if good else ' (not granted)'}")
    # Control: a header no rule lists is not granted, so the headers are matched, not ignored.
    a = preflight(t, b, "k.txt", APP, "GET", "x-other")
    control = not granted(a, APP, "GET", "x-other")
    ok &= control
    seen.append(f"control 'x-other' (not allowed): {show(a)}{'' if control else ' (granted)'}")
    return judge(ok, "; ".join(seen))


@probe("s3.cors.wildcard")
def _(t: Target):
    try:
        b = cors_bucket(t, config(rule(["*"], ["GET", "HEAD"])))
    except Unjudgeable as refused:
        # A wildcard rule the target will not store is one that allows nothing, provided a rule
        # naming the origin is stored (else CORS configuration as a whole is refused).
        twin = put_cors(t, t.new_bucket("cors"), config(rule([APP], ["GET", "HEAD"])))
        if accepted(twin):
            return judge(False, f"{refused} for AllowedOrigin *, while a rule naming {APP} answered {st(twin)}")
        raise Unjudgeable(f"{refused}, for AllowedOrigin * and for {APP} ({st(twin)}) alike") from None
    ok, seen = True, []
    for origin in ["https://anything.example.org", "http://localhost:8080"]:
        a = preflight(t, b, "k.txt", origin, "GET")
        good = granted(a, origin, "GET")
        ok &= good
        seen.append(f"preflight from {origin}: {show(a)}{'' if good else ' (not granted)'}")
    for method in ["GET", "HEAD"]:
        origin = "https://another.example.com"
        a = t.request(method, b, "k.txt", headers={"Origin": origin})
        allow = a.header("access-control-allow-origin")
        good = a.status == 200 and allow in (origin, "*")
        ok &= good
        seen.append(f"{method} with Origin {origin}: {a.status}, allow-origin {allow!r}")
    return judge(ok, "; ".join(seen))


@probe("s3.cors.presigned")
def _(t: Target):
    b = cors_bucket(t, config(rule([APP], ["GET", "PUT"])))
    ok, seen = True, []
    get = t.get_url(presign(t, "GET", b, "k.txt"), headers={"Origin": APP})
    allow = get.header("access-control-allow-origin")
    good = get.status == 200 and get.body == b"cors" and allow in (APP, "*")
    ok &= good
    seen.append(f"presigned GET with Origin: {get.status}, body {get.body[:20]!r}, allow-origin {allow!r}")
    url = presign(t, "PUT", b, "up.txt")
    parts = urllib.parse.urlsplit(url)
    put = t.send("PUT", f"{parts.path}?{parts.query}", {"Origin": APP}, b"via presigned put")
    allow = put.header("access-control-allow-origin")
    good = put.status == 200 and allow in (APP, "*")
    ok &= good
    seen.append(f"presigned PUT with Origin: {put.status}, allow-origin {allow!r}")
    return judge(ok, "; ".join(seen))


@probe("s3.cors.preflight-s3")
def _(t: Target):
    b = cors_bucket(t, config(rule([APP], ["GET", "PUT"])))
    ok, seen = True, []
    for key, method in [("k.txt", "PUT"), ("k.txt", "GET"), (None, "GET")]:
        a = preflight(t, b, key, APP, method)
        good = granted(a, APP, method)
        ok &= good
        seen.append(f"OPTIONS /{b}{'/' + key if key else ''} {method}: {show(a)}{'' if good else ' (not granted)'}")
    # The answer follows the configuration: a method the rule does not list is not granted.
    a = preflight(t, b, "k.txt", APP, "DELETE")
    control = not granted(a, APP, "DELETE")
    ok &= control
    seen.append(f"control DELETE (not listed): {show(a)}{'' if control else ' (granted)'}")
    return judge(ok, "; ".join(seen))


@probe("s3.cors.expose-headers")
def _(t: Target):
    with_expose = cors_bucket(t, config(rule([APP], ["GET", "HEAD"], expose=["ETag", "x-amz-meta-note"])), "expose")
    without = cors_bucket(t, config(rule([APP], ["GET", "HEAD"])), "plain")
    # The twin: with ExposeHeader defined the header is rendered (else its absence below would say nothing).
    a = t.request("GET", with_expose, "k.txt", headers={"Origin": APP})
    exposed = listed(a.header("access-control-expose-headers"))
    if a.status != 200 or "etag" not in exposed:
        raise Unjudgeable(f"GET with Origin on a rule with ExposeHeader ETag answered {a.status}, "
                          f"expose-headers {a.header('access-control-expose-headers')!r}")
    h = t.request("HEAD", with_expose, "k.txt", headers={"Origin": APP})
    seen = [f"with ExposeHeader: GET 200 expose-headers {a.header('access-control-expose-headers')!r}, "
            f"HEAD {h.status} expose-headers {h.header('access-control-expose-headers')!r}"]
    ok = True
    for method in ["GET", "HEAD"]:
        a = t.request(method, without, "k.txt", headers={"Origin": APP})
        good = a.status == 200 and a.header("access-control-expose-headers") is None
        ok &= good
        seen.append(f"{method} on a rule without: {a.status}, allow-origin {a.header('access-control-allow-origin')!r}, "
                    f"expose-headers {a.header('access-control-expose-headers')!r}")
    a = preflight(t, without, "k.txt", APP, "GET")
    good = a.header("access-control-expose-headers") is None
    ok &= good
    seen.append(f"preflight on the rule without: {show(a)}, expose-headers {a.header('access-control-expose-headers')!r}")
    return judge(ok, "; ".join(seen))
