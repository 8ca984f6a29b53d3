"""Object lifecycle rules (S3 behaviour 15): set, read back, delete; invalid rules refused (Amazon S3)."""

from __future__ import annotations

import base64
import hashlib

from truth import Answer, Target, Unjudgeable, accepted, bucket_gone, child_text, judge, probe, st


def rule(rid: str, status: str = "Enabled", prefix: str = "tmp/", days: str = "30") -> str:
    return (f"<Rule><ID>{rid}</ID><Filter><Prefix>{prefix}</Prefix></Filter><Status>{status}</Status>"
            f"<Expiration><Days>{days}</Days></Expiration></Rule>")


def put_lifecycle(t: Target, b: str, *rules: str) -> Answer:
    body = ("<LifecycleConfiguration>" + "".join(rules) + "</LifecycleConfiguration>").encode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return t.request("PUT", b, query={"lifecycle": ""}, body=body, headers={"Content-MD5": md5})


def rules_of(a: Answer) -> list[tuple[str | None, str | None, str | None]]:
    """(ID, Status, Expiration Days) of each rule a GetBucketLifecycleConfiguration answer holds."""
    out = []
    for r in a.all("Rule"):
        exp = next((c for c in r if c.tag.rsplit("}", 1)[-1] == "Expiration"), None)
        out.append((child_text(r, "ID"), child_text(r, "Status"), None if exp is None else child_text(exp, "Days")))
    return out


@probe("s3.lifecycle.rules")
def _(t: Target):
    b = t.new_bucket("lc")
    put = put_lifecycle(t, b, rule("expire-tmp"), rule("old-logs", "Disabled", "logs/", "7"))
    if put.status != 200:
        return judge(False, f"PutBucketLifecycleConfiguration of two valid rules answered {st(put)}")
    got = t.request("GET", b, query={"lifecycle": ""})
    read = rules_of(got) if got.status == 200 else []
    ok = sorted(read) == sorted([("expire-tmp", "Enabled", "30"), ("old-logs", "Disabled", "7")])
    seen = ["put: 200", f"get: {got.status}, rules {read}"]
    delete = t.request("DELETE", b, query={"lifecycle": ""})
    after = t.request("GET", b, query={"lifecycle": ""})
    left = rules_of(after) if after.status == 200 else []
    # What remains is a bucket without rules: a 404 NoSuchBucket, or a bucket HeadBucket no longer
    # finds, is a DeleteBucket's side effect, not the rules deleted.
    gone = bucket_gone(t, b)
    ok &= (200 <= delete.status < 300 and not left and not gone
           and (after.status == 200 or (after.status == 404 and after.code != "NoSuchBucket")))
    seen.append(f"delete: {st(delete)}; get afterwards: {st(after)}, rules {left}" + (f"; {gone}" if gone else ""))
    return judge(ok, "; ".join(seen))


@probe("s3.lifecycle.rules-validated")
def _(t: Target):
    b = t.new_bucket("lc")
    twin = put_lifecycle(t, b, rule("a", "Enabled", "a/", "1"), rule("b", "Disabled", "b/", "2"))
    ok, seen, carried = True, [f"valid twin (IDs a, b): {st(twin)}"], []
    for label, rules in [
        ("ID of 256 characters", [rule("r" * 256)]),
        ("two rules with ID 'same'", [rule("same", prefix="a/"), rule("same", prefix="b/")]),
        ("Status 'Paused'", [rule("a", "Paused")]),
        ("Expiration Days 0", [rule("a", days="0")]),
    ]:
        a = put_lifecycle(t, b, *rules)
        ok &= a.status == 400
        seen.append(f"{label}: {st(a)}")
        # Accepted, or refused with another status than 400, departs whatever the valid twin got.
        if accepted(a) or a.status != 400:
            carried.append(f"{label}: {st(a)}")
    if twin.status != 200:
        # Every configuration refused with 400 proves nothing of validation; one accepted, or refused
        # otherwise, departs.
        if carried:
            return judge(False, "; ".join(carried) + f" (two valid rules: {st(twin)})")
        raise Unjudgeable(f"PutBucketLifecycleConfiguration of two valid rules answered {st(twin)}; " + "; ".join(seen[1:]))
    got = t.request("GET", b, query={"lifecycle": ""})
    kept = rules_of(got)
    ok &= sorted(kept) == [("a", "Enabled", "1"), ("b", "Disabled", "2")]
    seen.append(f"GetBucketLifecycleConfiguration afterwards: {got.status}, rules {kept}")
    return judge(ok, "; ".join(seen))
