"""Conditional requests (S3 behaviour 9): If-Match / If-None-Match with ETag lists, weak ETags and
the wildcard on GET, HEAD and PUT; and, as Amazon S3 documents them, 304/412 on reads, the order of
If-Match before If-None-Match, and CopyObject's x-amz-copy-source-if-(none-)match."""

from __future__ import annotations

from truth import probe, st, Tally, Target, Unjudgeable

BODY = b"conditional-body"
OTHER = '"00000000000000000000000000000000"'
OTHER2 = '"11111111111111111111111111111111"'


def with_object(t: Target) -> tuple[str, str]:
    b = t.new_bucket()
    etag = t.put(b, "obj", BODY).header("etag")
    if not etag:
        raise Unjudgeable("PutObject answered no ETag to build conditions from")
    # Conditions carry the entity tag quoted (RFC 9110); an ETag header sent bare is quoted here, as
    # clients do: its quoting is s3.object.etag-md5's statement, not a precondition of these clauses.
    if not etag.startswith(('"', 'W/"')):
        etag = f'"{etag}"'
    return b, etag


def expected(method: str, header: str, matches: bool) -> int:
    """Amazon S3 / RFC 9110: If-Match miss 412; If-None-Match hit 304 on reads, 412 on writes."""
    if header == "if-match":
        return 200 if matches else 412
    if not matches:
        return 200
    return 412 if method == "PUT" else 304


def allowed(method: str, header: str, matches: bool) -> tuple[int, ...]:
    """SPEC's behaviour 9 clauses: as `expected`, but a matching If-None-Match on a read may be refused
    with 304 or 412 (SPEC's 412 for a failing condition); the 304 is s3.cond.get-not-modified's alone."""
    if header == "if-none-match" and matches and method != "PUT":
        return (304, 412)
    return (expected(method, header, matches),)


def show(value: str, etag: str) -> str:
    """A header value with the object's ETag shown as <etag> and the made-up ones as <other>."""
    return value.replace(etag, "<etag>").replace(OTHER, "<other>").replace(OTHER2, "<other2>")


def conditional(t: Target, tally: Tally, b: str, etag: str, method: str, header: str, value: str,
                matches: bool, key: str = "obj", exact: bool = False) -> None:
    """exact: judge the status Amazon S3 answers (`expected`) rather than those SPEC allows (`allowed`)."""
    # A PUT writes the same bytes, so the object's ETag stays what the conditions are built from.
    a = t.request(method, b, key, headers={header: value}, body=BODY if method == "PUT" else b"")
    want = (expected(method, header, matches),) if exact else allowed(method, header, matches)
    body_ok = method != "GET" or a.status != 200 or a.body == BODY
    tally.check(a.status in want and body_ok,
                f"{method} {header}: {show(value, etag)} -> {a.status}{'' if body_ok else ' with other bytes'} "
                f"(want {' or '.join(map(str, want))})")


@probe("s3.cond.etag-list")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    hits = {"GET": f"{OTHER}, {e}", "HEAD": f"{e},{OTHER}", "PUT": f"{OTHER} , {e} , {OTHER2}"}
    misses = {"GET": f"{OTHER}, {OTHER2}", "HEAD": f"{OTHER},{OTHER2}", "PUT": f'{OTHER} , {OTHER2} , W/"2"'}
    for method in ("GET", "HEAD", "PUT"):
        for header in ("if-match", "if-none-match"):
            conditional(t, tally, b, e, method, header, hits[method], True)
            conditional(t, tally, b, e, method, header, misses[method], False)
    return tally.outcome()


@probe("s3.cond.weak-etag")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    for method in ("GET", "HEAD", "PUT"):
        # SPEC lets both headers take weak tags: If-Match compares weakly too, unlike RFC 9110's.
        for header in ("if-match", "if-none-match"):
            conditional(t, tally, b, e, method, header, f"W/{e}", True)
            conditional(t, tally, b, e, method, header, f"W/{OTHER}", False)
    conditional(t, tally, b, e, "GET", "if-none-match", f"W/{OTHER}, W/{e}", True)
    conditional(t, tally, b, e, "HEAD", "if-none-match", f"{OTHER}, W/{e}", True)
    return tally.outcome()


@probe("s3.cond.wildcard")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    # The valid twin of the refused write: If-None-Match * on a key that does not exist goes ahead.
    twin = t.request("PUT", b, "fresh", headers={"if-none-match": "*"}, body=BODY)
    for method in ("GET", "HEAD", "PUT"):
        conditional(t, tally, b, e, method, "if-match", "*", True)
        if method != "PUT" or twin.status == 200:
            conditional(t, tally, b, e, method, "if-none-match", "*", True)
        else:
            # Its twin refused, a 412 proves nothing; an overwrite carried out departs.
            a = t.request("PUT", b, "obj", headers={"if-none-match": "*"}, body=BODY)
            tally.refused_anyway(a, f"PUT if-none-match: * over the object -> {st(a)} (want 412)",
                                 f"PUT of a new key with if-none-match: * -> {st(twin)}")
    return tally.outcome()


@probe("s3.cond.get-not-modified")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    for method in ("GET", "HEAD"):
        # The valid twins: the same headers with the other ETag are served.
        twins_ok = True
        for header, value in (("if-none-match", OTHER), ("if-match", e)):
            a = t.request(method, b, "obj", headers={header: value})
            if a.status != 200:
                twins_ok = False
                tally.skip(f"{method} with {header}: {show(value, e)} was refused ({st(a)})")
        if not twins_ok:
            # A 304 or 412 proves nothing where the twins are refused; the object served departs.
            for header, value in (("if-none-match", e), ("if-match", OTHER)):
                a = t.request(method, b, "obj", headers={header: value})
                if a.status == 200:
                    tally.check(False, f"{method} {header}: {show(value, e)} -> 200 "
                                       f"(want {expected(method, header, header == 'if-none-match')})")
            continue
        conditional(t, tally, b, e, method, "if-none-match", e, True, exact=True)
        conditional(t, tally, b, e, method, "if-match", OTHER, False, exact=True)
    return tally.outcome()


@probe("s3.cond.precedence")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    for im, inm, want in ((e, OTHER, 200), (OTHER, e, 412), (OTHER, OTHER2, 412), (e, e, 304)):
        a = t.request("GET", b, "obj", headers={"if-match": im, "if-none-match": inm})
        tally.check(a.status == want,
                    f"GET if-match {'hit' if im == e else 'miss'} + if-none-match {'hit' if inm == e else 'miss'} "
                    f"-> {a.status} (want {want})")
    return tally.outcome()


@probe("s3.cond.copy-source")
def _(t: Target):
    b, e = with_object(t)
    tally = Tally()
    cases = [
        ("x-amz-copy-source-if-match", e, 200),
        ("x-amz-copy-source-if-match", OTHER, 412),
        ("x-amz-copy-source-if-none-match", OTHER, 200),
        ("x-amz-copy-source-if-none-match", e, 412),
    ]
    # The copies whose condition holds come first: the clause owes them (a copy that goes ahead), and
    # without them a 412 could be a refusal of every conditional copy.
    twins_ok = True
    for n, (header, value, want) in enumerate(cases):
        dest = f"copy-{n}"
        a = t.request("PUT", b, dest, headers={"x-amz-copy-source": f"/{b}/obj", header: value})
        seen = f"CopyObject with {header}: {'its ETag' if value == e else 'another ETag'} -> {st(a)}"
        if want == 200:
            twins_ok = tally.check(a.status == 200 and a.root != "Error", f"{seen} (want 200)") and twins_ok
        elif not twins_ok and a.status == 412:
            tally.skip(f"{seen}, but the copies whose condition holds were refused as well")
        else:
            h = t.request("HEAD", b, dest)
            tally.check(a.status == 412 and h.status == 404, f"{seen} (want 412), HEAD {dest} then {h.status}")
    return tally.outcome()
