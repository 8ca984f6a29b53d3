"""Listing (S3 behaviour 13): ListObjects (V1) and ListObjectsV2 parameters, cursors and ListBuckets.

Each probe lists one small key set and compares the answer with a model of Amazon S3 listing
(UTF-8 byte order, common prefixes rolled up after the prefix, start-after / marker exclusive).
"""

from __future__ import annotations

import secrets
import urllib.parse

from truth import Answer, Target, Unjudgeable, child_text, departs, judge, st
from truth import probe as register


class Refused(Exception):
    """A listing the clause is about was not answered with a listing: the probe departs."""


def probe(clause: str):
    """Registers a probe whose listing refusals (Refused) are departures."""

    def wrap(fn):
        def run(t: Target):
            try:
                return fn(t)
            except Refused as e:
                return departs(str(e))

        return register(clause)(run)

    return wrap


# a-/x sorts before a/ ('-' < '/'); B before a (upper case first in byte order); e/ is an empty folder.
KEYS = ["B", "a-x", "a/1", "a/2", "b", "c/d/e", "e/"]


def u8(s: str) -> bytes:
    return s.encode("utf-8")


def model(keys: list[str], prefix: str = "", delimiter: str = "", after: str = "") -> list[tuple[str, str]]:
    """The whole listing Amazon S3 gives, in order: ("key", k) and ("prefix", p) entries."""
    out: list[tuple[str, str]] = []
    for k in sorted(keys, key=u8):
        if not k.startswith(prefix) or u8(k) <= u8(after):
            continue
        if delimiter:
            i = k.find(delimiter, len(prefix))
            if i >= 0:
                group = k[: i + len(delimiter)]
                if group == after or (out and out[-1] == ("prefix", group)):
                    continue
                out.append(("prefix", group))
                continue
        out.append(("key", k))
    return out


def keys_of(entries: list[tuple[str, str]]) -> list[str]:
    return [v for kind, v in entries if kind == "key"]


def prefixes_of(entries: list[tuple[str, str]]) -> list[str]:
    return [v for kind, v in entries if kind == "prefix"]


def bucket_with(t: Target, keys: list[str] = KEYS) -> str:
    b = t.new_bucket("list")
    for k in keys:
        t.put(b, k, b"" if k.endswith("/") else b"x")
    return b


def listing(t: Target, b: str, v2: bool = True, **params: str) -> Answer:
    q = [("list-type", "2")] if v2 else []
    q += [(k.replace("_", "-"), v) for k, v in params.items()]
    a = t.request("GET", b, query=q)
    root = a.xml()
    if a.status == 200 and root is not None:
        # The transcript cuts long bodies: the fields the probes judge, as received.
        fields = {n: child_text(root, n) for n in
                  ("IsTruncated", "KeyCount", "ContinuationToken", "NextContinuationToken", "NextMarker")}
        t.note(f"=   Contents/Key {[child_text(c, 'Key') for c in a.all('Contents')]}, "
               f"CommonPrefixes/Prefix {[child_text(c, 'Prefix') for c in a.all('CommonPrefixes')]}, "
               + ", ".join(f"{k} {v!r}" for k, v in fields.items() if v is not None))
    return a


def page(a: Answer, decode: bool = False, setup: bool = False) -> dict:
    """The fields of a ListBucketResult the listing clauses speak of."""
    if a.status != 200 or a.xml() is None:
        why = f"a listing answered {st(a)}" + (f": {a.text('Message')}" if a.code else "")
        raise Unjudgeable(why) if setup else Refused(why)
    d = urllib.parse.unquote_plus if decode else (lambda s: s)
    root = a.xml()
    get = lambda name: child_text(root, name)  # noqa: E731
    return {
        "keys": [d(child_text(c, "Key") or "") for c in a.all("Contents")],
        "prefixes": [d(child_text(c, "Prefix") or "") for c in a.all("CommonPrefixes")],
        "truncated": (get("IsTruncated") or "").strip() == "true",
        "key_count": get("KeyCount"),
        "next_token": get("NextContinuationToken"),
        "token": get("ContinuationToken"),
        "next_marker": get("NextMarker"),
    }


def name(v2: bool) -> str:
    return "ListObjectsV2" if v2 else "ListObjects"


def compare(t: Target, b: str, keys: list[str], cases: list[tuple[bool, dict]]) -> tuple[bool, list[str]]:
    """Lists with each (v2, params) and compares the keys and common prefixes with the model, as sets:
    order is the pagination clause's to judge."""
    ok, seen = True, []
    for v2, params in cases:
        p = page(listing(t, b, v2, **params))
        after = params.get("start_after" if v2 else "marker", "")
        want = model(keys, params.get("prefix", ""), params.get("delimiter", ""), after)
        good = sorted(p["keys"], key=u8) == keys_of(want) and sorted(p["prefixes"], key=u8) == prefixes_of(want)
        ok &= good
        seen.append(
            f"{name(v2)} {params}: keys {p['keys']} prefixes {p['prefixes']}"
            + ("" if good else f" (expected keys {keys_of(want)} prefixes {prefixes_of(want)})")
        )
    return ok, seen


@probe("s3.list.prefix")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = compare(t, b, KEYS, [
        (True, {"prefix": "a/"}),
        (False, {"prefix": "a/"}),
        (True, {"prefix": "a"}),
        (False, {"prefix": "c/"}),
        (True, {"prefix": "c/", "delimiter": "/"}),
        (True, {"prefix": "zz"}),
    ])
    return judge(ok, "; ".join(seen))


@probe("s3.list.delimiter")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = compare(t, b, KEYS, [
        (True, {"delimiter": "/"}),
        (False, {"delimiter": "/"}),
        (True, {"delimiter": "-"}),
        (False, {"delimiter": "d"}),
        (True, {"prefix": "c/", "delimiter": "/"}),
    ])
    return judge(ok, "; ".join(seen))


@probe("s3.list.start-after")
def _(t: Target):
    # No key two delimiters deep, so that a delimiter fault does not show up here as well.
    keys = [k for k in KEYS if k != "c/d/e"] + ["c/d"]
    b = bucket_with(t, keys)
    ok, seen = compare(t, b, keys, [
        (True, {"start_after": "a/1"}),
        (True, {"start_after": "a/15"}),
        (False, {"marker": "a/1"}),
        (False, {"marker": "b"}),
        (True, {"start_after": "a/2", "delimiter": "/"}),
        (False, {"marker": "a/2", "delimiter": "/"}),
    ])
    return judge(ok, "; ".join(seen))


@probe("s3.list.max-keys")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = True, []
    for v2, params in [
        (True, {"max_keys": "2"}),
        (False, {"max_keys": "2"}),
        (True, {"max_keys": "1", "delimiter": "/"}),
        (False, {"max_keys": "1", "delimiter": "/"}),
        (True, {"max_keys": "3", "prefix": "a/"}),
    ]:
        p = page(listing(t, b, v2, **params))
        n = len(p["keys"]) + len(p["prefixes"])
        good = n <= int(params["max_keys"])
        ok &= good
        seen.append(f"{name(v2)} {params}: {n} entries {p['keys'] + p['prefixes']}" + ("" if good else " (too many)"))
    return judge(ok, "; ".join(seen))


def follow(t: Target, b: str, params: dict, limit: int = 12) -> tuple[list[str], list[str], str | None]:
    """Follows NextContinuationToken; returns every key and prefix in order, and a problem if any."""
    keys, prefixes, token = [], [], None
    for _ in range(limit):
        q = dict(params)
        if token is not None:
            q["continuation_token"] = token
        p = page(listing(t, b, True, **q))
        keys += p["keys"]
        prefixes += p["prefixes"]
        if not p["truncated"]:
            return keys, prefixes, None
        if not p["next_token"]:
            return keys, prefixes, "a truncated page had no NextContinuationToken"
        token = p["next_token"]
    return keys, prefixes, f"still truncated after {limit} pages"


@probe("s3.list.pagination")
def _(t: Target):
    keys = KEYS + ["it's & <x>", "ü x"]
    b = bucket_with(t, keys)
    ok, seen = True, []
    for params in [{"max_keys": "2"}, {"max_keys": "1", "delimiter": "/"}, {"max_keys": "2", "prefix": "a"}]:
        got_k, got_p, problem = follow(t, b, params)
        want = model(keys, params.get("prefix", ""), params.get("delimiter", ""))
        good = problem is None and got_k == keys_of(want) and got_p == prefixes_of(want)
        ok &= good
        seen.append(
            f"{params}: pages gave keys {got_k} prefixes {got_p}"
            + ("" if good else f" ({problem or 'expected keys ' + str(keys_of(want)) + ' prefixes ' + str(prefixes_of(want))})")
        )
    return judge(ok, "; ".join(seen))


def encoded_echo(value: str, sent: str) -> bool:
    """An echoed element (Prefix, Delimiter, StartAfter, Marker) URL-encoded, decoding to what was sent."""
    return value.isascii() and " " not in value and urllib.parse.unquote_plus(value) == sent


def echoes(t: Target, b: str) -> tuple[bool, list[str]]:
    """The Prefix echo, Delimiter, StartAfter, Marker and NextMarker of encoded listings whose values
    need encoding: a target encoding only Key and CommonPrefixes sends these as stored, and boto3's
    ListObjects paginator then loops on the NextMarker it cannot match."""
    ok, seen = True, []
    for v2, params in [
        (True, {"prefix": "dïr/", "delimiter": "/", "start_after": "dïr/a b"}),
        (False, {"prefix": "dïr/", "delimiter": "/", "marker": "dïr/a b", "max_keys": "1"}),
        (True, {"delimiter": "ü"}),
        (False, {"delimiter": "ü"}),
    ]:
        a = listing(t, b, v2, encoding_type="url", **params)
        p = page(a)
        root = a.xml()
        names = {"prefix": "Prefix", "delimiter": "Delimiter", "start_after": "StartAfter", "marker": "Marker"}
        for param, element in names.items():
            value = child_text(root, element) if param in params else None
            if value is None:
                continue  # whether the element is echoed at all is no statement of this clause
            if param in params:
                good = encoded_echo(value, params[param])
                ok &= good
                seen.append(f"{name(v2)} {element} {value!r} for {params[param]!r}" + ("" if good else " (not encoded)"))
        if not v2 and p["next_marker"] is not None:
            # Which key NextMarker names is s3.list.next-marker's; here only that it comes encoded.
            value = p["next_marker"]
            good = value.isascii() and " " not in value
            ok &= good
            seen.append(f"ListObjects NextMarker {value!r}" + ("" if good else " (not encoded)"))
    return ok, seen


@probe("s3.list.encoding-type")
def _(t: Target):
    keys = ["ü x", "dïr/k", "a+b", "p%20q", "x+y/z", "dïr/a b", "dïr/c d", "dïr/e f", "aüb"]
    b = bucket_with(t, keys)
    ok, seen = echoes(t, b)
    for v2, params in [(True, {"delimiter": "/"}), (False, {"delimiter": "/"}), (True, {}), (False, {})]:
        a = listing(t, b, v2, encoding_type="url", **params)
        raw = page(a)
        dec = page(a, decode=True)
        want = model(keys, "", params.get("delimiter", ""))
        ascii_only = all(s.isascii() and " " not in s for s in raw["keys"] + raw["prefixes"])
        good = ascii_only and dec["keys"] == keys_of(want) and dec["prefixes"] == prefixes_of(want)
        ok &= good
        seen.append(f"{name(v2)} encoding-type url {params}: keys {raw['keys']} prefixes {raw['prefixes']}"
                    + ("" if good else f" (decoded {dec['keys'] + dec['prefixes']}, stored {keys_of(want) + prefixes_of(want)})"))
    return judge(ok, "; ".join(seen))


@probe("s3.list.key-count")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = True, []
    for params in [{}, {"delimiter": "/"}, {"prefix": "c/", "delimiter": "/"}, {"max_keys": "2", "delimiter": "/"}]:
        p = page(listing(t, b, True, **params))
        n = len(p["keys"]) + len(p["prefixes"])
        good = p["key_count"] is not None and p["key_count"].strip() == str(n)
        ok &= good
        seen.append(f"ListObjectsV2 {params}: KeyCount {p['key_count']!r} for {len(p['keys'])} keys + {len(p['prefixes'])} prefixes")
    return judge(ok, "; ".join(seen))


@probe("s3.list.empty-folder")
def _(t: Target):
    b = bucket_with(t, ["e/", "f/g/", "f/h", "k"])
    ok, seen = True, []
    for v2, params, folder in [
        (True, {"delimiter": "/"}, "e/"),
        (False, {"delimiter": "/"}, "e/"),
        (True, {"prefix": "f/", "delimiter": "/"}, "f/g/"),
    ]:
        p = page(listing(t, b, v2, **params))
        good = folder in p["prefixes"]
        ok &= good
        seen.append(f"{name(v2)} {params}: prefixes {p['prefixes']}, keys {p['keys']} (empty folder {folder})")
    return judge(ok, "; ".join(seen))


@probe("s3.list.next-marker")
def _(t: Target):
    b = bucket_with(t)
    ok, seen, marker = True, [], ""
    # Not truncated: whole listings, with and without a delimiter, and an exact fit.
    for params in [{}, {"delimiter": "/"}, {"max_keys": str(len(KEYS))}, {"prefix": "a/", "delimiter": "/", "max_keys": "2"}]:
        p = page(listing(t, b, False, **params))
        good = p["truncated"] or p["next_marker"] is None
        ok &= good
        seen.append(f"ListObjects {params}: IsTruncated {p['truncated']}, NextMarker {p['next_marker']!r}")
    # Paging with max-keys 2 and a delimiter: NextMarker may appear on truncated pages, never on the last.
    for _ in range(8):
        p = page(listing(t, b, False, delimiter="/", max_keys="2", marker=marker))
        good = p["truncated"] or p["next_marker"] is None
        ok &= good
        seen.append(f"ListObjects delimiter / max-keys 2 marker {marker!r}: IsTruncated {p['truncated']}, NextMarker {p['next_marker']!r}")
        if not p["truncated"]:
            break
        marker = p["next_marker"] or ((p["keys"] + p["prefixes"]) and sorted(p["keys"] + p["prefixes"], key=u8)[-1]) or ""
        if not marker:
            break
    return judge(ok, "; ".join(seen))


@probe("s3.list.no-cursor-at-max-keys")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = True, []
    for v2, params in [
        (True, {}),
        (False, {}),
        (True, {"delimiter": "/"}),
        (False, {"delimiter": "/"}),
        (True, {"prefix": "a/"}),
    ]:
        # max-keys set to the number of entries the target itself lists, so that exactly nothing follows.
        whole = page(listing(t, b, v2, **params), setup=True)
        n = len(whole["keys"]) + len(whole["prefixes"])
        p = page(listing(t, b, v2, max_keys=str(n), **params))
        cursor = p["next_token"] if v2 else p["next_marker"]
        # The cursor only: whether the page says it is truncated is no part of the clause.
        good = cursor is None
        ok &= good
        seen.append(f"{name(v2)} {params} max-keys {n} ({n} entries listed without it): "
                    f"{len(p['keys']) + len(p['prefixes'])} entries, IsTruncated {p['truncated']}, "
                    f"{'NextContinuationToken' if v2 else 'NextMarker'} {cursor!r}")
    return judge(ok, "; ".join(seen))


@probe("s3.list.continuation-echo")
def _(t: Target):
    b = bucket_with(t)
    ok, seen = True, []
    for params in [{"max_keys": "2"}, {"max_keys": "1", "delimiter": "/"}]:
        p = page(listing(t, b, True, **params))
        pages = 0
        while p["truncated"] and p["next_token"] and pages < 8:
            sent = p["next_token"]
            p = page(listing(t, b, True, continuation_token=sent, **params))
            pages += 1
            good = p["token"] == sent
            ok &= good
            seen.append(f"{params} sent continuation-token {sent!r}: ContinuationToken {p['token']!r}")
        if pages == 0:
            raise Unjudgeable(f"ListObjectsV2 {params} over {len(KEYS)} keys gave no NextContinuationToken")
    return judge(ok, "; ".join(seen))


@probe("s3.list.invalid-cursor")
def _(t: Target):
    b = bucket_with(t)
    first = page(listing(t, b, True, max_keys="1"), setup=True)
    if not first["next_token"]:
        raise Unjudgeable("ListObjectsV2 max-keys 1 gave no NextContinuationToken")
    twin = listing(t, b, True, continuation_token=first["next_token"])
    ok, seen, decided = True, [f"own token: {st(twin)}"], []
    for bad in ["not-a-token!", "eyJ4IjoxfQ", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", first["next_token"][:-2] + "zz"]:
        a = listing(t, b, True, continuation_token=bad)
        msg = a.text("Message") if a.root == "Error" else None
        good = 400 <= a.status < 500 and a.code not in (None, "InternalError") and bool(msg)
        ok &= good
        seen.append(f"token {bad!r}: {st(a)} {msg!r}")
        if not 400 <= a.status < 500 or a.code == "InternalError":
            decided.append(seen[-1])
    if twin.status != 200:
        # The target's own token refused too, a client error proves nothing; InternalError, a server
        # error or a listing served for a made-up token departs.
        if decided:
            return judge(False, "; ".join(decided) + f" (own token: {st(twin)})")
        raise Unjudgeable(f"the target's own continuation token was refused ({st(twin)}); " + "; ".join(seen[1:]))
    return judge(ok, "; ".join(seen))


@probe("s3.list.max-keys-zero")
def _(t: Target):
    b = bucket_with(t, ["a", "b"])
    ok, seen = True, []
    for label, a, root in [
        ("ListObjectsV2", listing(t, b, True, max_keys="0"), "ListBucketResult"),
        ("ListObjects", listing(t, b, False, max_keys="0"), "ListBucketResult"),
        ("ListBuckets", t.request("GET", query={"max-keys": "0"}), "ListAllMyBucketsResult"),
    ]:
        good = a.status == 200 and a.root == root
        ok &= good
        entries = len(a.all("Contents")) if root == "ListBucketResult" else len(a.all("Buckets", "Bucket"))
        what = a.code or a.root or "no XML"
        seen.append(f"{label} max-keys 0: {a.status} {what}, {entries} entries")
    return judge(ok, "; ".join(seen))


def bucket_names(a: Answer) -> list[str]:
    return [child_text(n, "Name") or "" for n in a.all("Buckets", "Bucket")]


@probe("s3.list.buckets-cf-headers")
def _(t: Target):
    # Three buckets with one random stem: no other client's bucket sorts between them.
    stem = f"truth-{secrets.token_hex(4)}-lb"
    mine = [f"{stem}{i}" for i in range(3)]
    for n in mine:
        a = t.request("PUT", n)
        if a.status != 200:
            raise Unjudgeable(f"CreateBucket {n} answered {st(a)}")
        t.made.append(("bucket", n, None))
    ok, seen = True, []
    by_query = t.request("GET", query={"max-keys": "1", "start-after": mine[0]})
    by_header = t.request("GET", raw_headers={"cf-max-keys": "1", "cf-start-after": mine[0]})
    q, h = bucket_names(by_query), bucket_names(by_header)
    good = by_query.status == 200 and by_header.status == 200 and q == [mine[1]] and h == q
    ok &= good
    seen.append(f"max-keys 1 + start-after {mine[0]}: URL parameters listed {q[:5]}{'...' if len(q) > 5 else ''} "
                f"({len(q)}), cf- headers listed {h[:5]}{'...' if len(h) > 5 else ''} ({len(h)})")
    token = child_text(by_query.xml(), "ContinuationToken") if by_query.xml() is not None else None
    if token:
        nq = bucket_names(t.request("GET", query={"max-keys": "1", "continuation-token": token}))
        nh = bucket_names(t.request("GET", raw_headers={"cf-max-keys": "1", "cf-continuation-token": token}))
        good = nq == [mine[2]] and nh == nq
        ok &= good
        seen.append(f"continuation-token from that page: URL parameter listed {nq[:5]}, cf-continuation-token listed {nh[:5]}")
    elif ok:
        raise Unjudgeable("; ".join(seen) + "; but that page gave no ContinuationToken to try cf-continuation-token with")
    return judge(ok, "; ".join(seen))


