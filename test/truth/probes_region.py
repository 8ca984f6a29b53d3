"""Region (S3 behaviour 2): the only region is auto."""

from truth import Target, judge, probe


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
