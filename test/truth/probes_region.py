"""Addressing, region and object lock (S3 behaviours 1-3): path-style requests reach the bucket
named in the path; the only region is auto, us-east-1 and "" alias to it; CreateBucket takes only
LocationConstraint auto and answers a location header; object lock can be off, never on."""

import secrets

from truth import Target, Unjudgeable, judge, probe, st as said


def fresh_name(t: Target, tag: str) -> str:
    """A bucket name no one holds, registered for cleanup whether or not it gets created."""
    name = f"truth-{secrets.token_hex(4)}-{tag}"
    t.made.append(("bucket", name, None))
    return name


def location_body(constraint: str) -> bytes:
    return (
        "<CreateBucketConfiguration><LocationConstraint>"
        f"{constraint}</LocationConstraint></CreateBucketConfiguration>"
    ).encode()




def exists(t: Target, name: str) -> bool:
    """Whether HeadBucket finds the bucket (200); any other answer means it is not there to use."""
    return t.request("HEAD", name).status == 200


@probe("s3.addressing.path-style")
def _(t: Target):
    # Two buckets hold the same key with different bodies: each path must reach its own bucket.
    b1, b2 = t.new_bucket("p1"), t.new_bucket("p2")
    t.put(b1, "same.txt", b"in-first")
    t.put(b2, "same.txt", b"in-second")
    g1 = t.request("GET", b1, "same.txt")
    g2 = t.request("GET", b2, "same.txt")
    lst = t.request("GET", b1, query={"list-type": "2"})
    keys = [k.text for k in lst.all("Contents", "Key")]
    ok = (g1.status, g1.body, g2.status, g2.body) == (200, b"in-first", 200, b"in-second") and (
        lst.status == 200 and keys == ["same.txt"]
    )
    return judge(
        ok,
        f"GET /{b1}/same.txt answered {g1.status} {g1.body[:20]!r}, GET /{b2}/same.txt answered "
        f"{g2.status} {g2.body[:20]!r}; ListObjectsV2 /{b1} answered {lst.status} with keys {keys}",
    )


def region_round(t: Target, region: str, tag: str) -> list[str]:
    """CreateBucket, HeadBucket, PutObject, GetObject, ListObjectsV2 and ListBuckets, all signed for
    `region`; returns what went wrong."""
    bad = []
    b = fresh_name(t, tag)
    label = f"signed for {region!r}"
    a = t.request("PUT", b, region=region)
    if a.status != 200:
        # Go on in a bucket made as the target likes, so that the other requests are judged too.
        bad.append(f"CreateBucket {label} answered {said(a)}")
        b = t.new_bucket(tag)
    a = t.request("HEAD", b, region=region)
    if a.status != 200:
        bad.append(f"HeadBucket {label} answered {said(a)}")
    a = t.request("PUT", b, "r.txt", body=region.encode() or b"empty", region=region)
    if a.status != 200:
        bad.append(f"PutObject {label} answered {said(a)}")
    a = t.request("GET", b, "r.txt", region=region)
    if a.status != 200 or a.body != (region.encode() or b"empty"):
        bad.append(f"GetObject {label} answered {said(a)} body {a.body[:30]!r}")
    a = t.request("GET", b, query={"list-type": "2"}, region=region)
    if a.status != 200 or [k.text for k in a.all("Contents", "Key")] != ["r.txt"]:
        bad.append(f"ListObjectsV2 {label} answered {said(a)}")
    a = t.request("GET", None, region=region)
    names = [n.text for n in a.all("Buckets", "Bucket", "Name")]
    if a.status != 200 or b not in names:
        bad.append(f"ListBuckets {label} answered {said(a)}{'' if b in names else ', not listing ' + b}")
    return bad


@probe("s3.region.auto")
def _(t: Target):
    bad = region_round(t, "auto", "auto")
    return judge(not bad, "; ".join(bad) or
                 "CreateBucket, HeadBucket, PutObject, GetObject, ListObjectsV2 and ListBuckets signed "
                 "for region auto all answered 200")


@probe("s3.region.aliases")
def _(t: Target):
    bad = []
    for region, tag in (("us-east-1", "use1"), ("", "empty")):
        bad += region_round(t, region, tag)
    # The aliases name the same region as auto: what one wrote, the other reads.
    b = t.new_bucket("alias")
    t.request("PUT", b, "via-alias.txt", body=b"via-alias", region="us-east-1")
    a = t.request("GET", b, "via-alias.txt", region="auto")
    if a.status != 200 or a.body != b"via-alias":
        bad.append(f"an object written signed for us-east-1 read signed for auto answered {said(a)}")
    return judge(not bad, "; ".join(bad) or
                 "CreateBucket, HeadBucket, PutObject, GetObject, ListObjectsV2 and ListBuckets signed for "
                 "us-east-1 and for the empty region all answered 200; an object written for us-east-1 "
                 "reads back signed for auto")


@probe("s3.region.get-bucket-location")
def _(t: Target):
    b = t.new_bucket()
    a = t.request("GET", b, query={"location": ""})
    lc = a.text() if a.root == "LocationConstraint" else None
    return judge(a.status == 200 and lc == "auto", f"GetBucketLocation answered {a.status}, LocationConstraint {lc!r}")


@probe("s3.region.head-bucket-header")
def _(t: Target):
    b = t.new_bucket()
    a = t.request("HEAD", b)
    region = a.header("x-amz-bucket-region")
    return judge(a.status == 200 and region == "auto", f"HeadBucket answered {a.status}, x-amz-bucket-region {region!r}")


@probe("s3.region.create-location-constraint")
def _(t: Target):
    seen, bad = [], []
    ok_name = fresh_name(t, "lc-auto")
    a = t.request("PUT", ok_name, body=location_body("auto"))
    seen.append(f"LocationConstraint auto: {said(a)}")
    if a.status != 200 or not exists(t, ok_name):
        bad.append(f"LocationConstraint auto answered {said(a)} (or the bucket is not there after)")
    for other in ("eu-west-1", "ap-southeast-2", "not-a-region"):
        name = fresh_name(t, "lc-other")
        a = t.request("PUT", name, body=location_body(other))
        seen.append(f"{other}: {said(a)}")
        if not 400 <= a.status < 500:
            bad.append(f"LocationConstraint {other} answered {said(a)}, not a refusal")
        if exists(t, name):
            bad.append(f"LocationConstraint {other} created the bucket (HeadBucket 200)")
    return judge(not bad, "; ".join(bad) or "CreateBucket answered " + ", ".join(seen) +
                 "; none of the refused names exists afterwards")


@probe("s3.region.create-location-header")
def _(t: Target):
    seen, bad = [], []
    for body, label in ((b"", "no configuration"), (location_body("auto"), "LocationConstraint auto")):
        name = fresh_name(t, "loc")
        a = t.request("PUT", name, body=body)
        if a.status != 200:
            if bad:
                break  # an earlier creation already departs
            raise Unjudgeable(f"CreateBucket with {label} answered {said(a)}")
        loc = a.header("location")
        seen.append(f"{label}: location {loc!r}")
        if not loc:
            bad.append(f"CreateBucket with {label} answered 200 without a location header")
    return judge(not bad, "; ".join(bad) or "CreateBucket answered 200 with " + ", ".join(seen))


@probe("s3.lock.create-disabled-accepted")
def _(t: Target):
    name = fresh_name(t, "lock-off")
    a = t.request("PUT", name, headers={"x-amz-bucket-object-lock-enabled": "false"})
    if a.status != 200:
        return judge(False, f"CreateBucket with x-amz-bucket-object-lock-enabled false answered {said(a)}")
    # Accepted means created and usable.
    p = t.request("PUT", name, "k.txt", body=b"lock-off")
    g = t.request("GET", name, "k.txt")
    return judge(
        p.status == 200 and g.status == 200 and g.body == b"lock-off",
        f"CreateBucket with object lock false answered 200; PutObject into it {said(p)}, GetObject {said(g)} "
        f"body {g.body[:20]!r}",
    )


@probe("s3.lock.create-enabled-not-implemented")
def _(t: Target):
    twin = fresh_name(t, "lock-twin")
    tw = t.request("PUT", twin, headers={"x-amz-bucket-object-lock-enabled": "false"})
    name = fresh_name(t, "lock-on")
    a = t.request("PUT", name, headers={"x-amz-bucket-object-lock-enabled": "true"})
    created = exists(t, name)
    if tw.status != 200:
        # The twin refused, a refusal proves nothing; a bucket made with object lock on departs.
        if a.status == 200 or created:
            return judge(False, f"CreateBucket with x-amz-bucket-object-lock-enabled true answered {said(a)}, "
                                f"HeadBucket afterwards {'finds' if created else 'does not find'} the bucket "
                                f"(object lock false: {said(tw)})")
        raise Unjudgeable(f"the valid twin (object lock false) answered {said(tw)}; true answered {said(a)}")
    return judge(
        a.status == 501 and a.code == "NotImplemented" and not created,
        f"CreateBucket with x-amz-bucket-object-lock-enabled true answered {said(a)} (object lock false: 200); "
        f"HeadBucket afterwards {'finds' if created else 'does not find'} the bucket",
    )
