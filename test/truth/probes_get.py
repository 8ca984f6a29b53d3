"""GetObject ranges (S3 behaviour 10): inclusive ranges answered 206, Content-Range only on partial
answers, and, as Amazon S3 documents them, open-ended, suffix and over-long ranges clipped to the
object, 416 InvalidRange for a range past the end and invalid Range headers ignored."""

from __future__ import annotations

from truth import probe, st, Tally, Target

DATA = b"abcdefghij"  # ten distinct bytes: any misplaced range shows
N = len(DATA)


def with_object(t: Target) -> str:
    b = t.new_bucket()
    t.put(b, "ten.bin", DATA)
    return b


def ranged(t: Target, b: str, rng: str | None, method: str = "GET"):
    return t.request(method, b, "ten.bin", headers={"range": rng} if rng else None)


def seen(rng: str, a) -> str:
    return f"{rng} -> {a.status}, Content-Range {a.header('content-range')!r}, body {a.body!r}"


@probe("s3.get.range-inclusive")
def _(t: Target):
    b = with_object(t)
    tally = Tally()
    for first, last in ((0, 0), (0, 1), (2, 5), (9, 9)):
        rng = f"bytes={first}-{last}"
        a = ranged(t, b, rng)
        cr = a.header("content-range")
        tally.check(a.body == DATA[first:last + 1] and cr in (None, f"bytes {first}-{last}/{N}"), seen(rng, a))
    return tally.outcome()


@probe("s3.get.range-206")
def _(t: Target):
    b = with_object(t)
    tally = Tally()
    # Only the status: the bytes served are s3.get.range-inclusive's statement.
    for first, last in ((0, 0), (2, 5), (9, 9), (0, 9)):
        rng = f"bytes={first}-{last}"
        a = ranged(t, b, rng)
        tally.check(a.status == 206, seen(rng, a))
    return tally.outcome()


@probe("s3.get.content-range-partial-only")
def _(t: Target):
    b = with_object(t)
    tally = Tally()
    for method in ("GET", "HEAD"):
        a = ranged(t, b, None, method)
        if a.status != 200:
            tally.skip(f"full {method} of the object answered {st(a)}")
            continue
        tally.check(a.header("content-range") is None,
                    f"full {method} -> {a.status}, Content-Range {a.header('content-range')!r}")
    for rng in ("bytes=0-0", "bytes=3-4", "bytes=-2"):
        a = ranged(t, b, rng)
        tally.check(a.status == 206 and a.header("content-range") is not None, seen(rng, a))
    # A Range that is no byte range, when ignored (a 200, the whole object), is no partial answer.
    for rng in ("bytes=5-2", "bytes=x-3"):
        a = ranged(t, b, rng)
        if a.status != 200:
            tally.skip(f"{rng} -> {st(a)}: the range was not ignored")
            continue
        tally.check(a.header("content-range") is None, seen(rng, a))
    return tally.outcome()


@probe("s3.get.range-forms")
def _(t: Target):
    b = with_object(t)
    tally = Tally()
    # (Range, first byte served, last byte served)
    for rng, first, last in (("bytes=7-", 7, 9), ("bytes=0-", 0, 9), ("bytes=-3", 7, 9), ("bytes=-100", 0, 9),
                             ("bytes=5-100", 5, 9)):
        a = ranged(t, b, rng)
        # A Content-Range, when sent, names the clipped bytes; that one is sent at all is
        # s3.get.content-range-partial-only's statement, not this clause's.
        tally.check(a.status == 206 and a.body == DATA[first:last + 1]
                    and a.header("content-range") in (None, f"bytes {first}-{last}/{N}"), seen(rng, a))
    return tally.outcome()


@probe("s3.get.range-unsatisfiable")
def _(t: Target):
    b = with_object(t)
    twin = ranged(t, b, "bytes=9-20")
    tally = Tally()
    for rng in ("bytes=10-20", "bytes=10-", "bytes=50-60"):
        a = ranged(t, b, rng)
        if twin.status != 206:
            # Ranges not served at all: a refusal proves nothing, but serving this one departs.
            tally.refused_anyway(a, f"{rng} of {N} bytes -> {st(a)}", f"bytes=9-20 -> {st(twin)}")
            continue
        tally.check(a.status == 416 and a.code == "InvalidRange", f"{rng} of {N} bytes -> {st(a)}")
    return tally.outcome()


@probe("s3.get.range-invalid-ignored")
def _(t: Target):
    b = with_object(t)
    twin = ranged(t, b, "bytes=2-5")
    tally = Tally()
    for rng in ("bytes=5-2", "bytes=x-3", "bytes=2-y"):
        a = ranged(t, b, rng)
        if twin.status != 206 and a.status == 200 and a.body == DATA:
            # A target serving no range at all ignores every Range: that says nothing of invalid ones.
            tally.skip(f"{rng} -> 200 with the whole object, but so was the valid bytes=2-5 ({st(twin)})")
            continue
        tally.check(a.status == 200 and a.body == DATA, seen(rng, a))
    return tally.outcome()
