"""Multipart uploads (S3 behaviour 11, States and transitions, the part-size limit) and the
multipart checksums clients rely on (Amazon S3). Parts other than the last are 5 MiB, as Amazon S3
requires; each probe moves at most a few of them."""

from __future__ import annotations

import base64
import hashlib
import random
import urllib.parse
import zlib

from truth import Answer, Target, Unjudgeable, child_text, judge, probe, st

MIB5 = 5 * 1024 * 1024


def data(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def md5hex(b: bytes) -> str:
    return hashlib.md5(b).hexdigest()




def bare(etag: str | None) -> str:
    return (etag or "").strip('"')


def create_upload(t: Target, b: str, key: str, headers: dict[str, str] | None = None) -> str:
    a = t.request("POST", b, key, query={"uploads": ""}, headers=headers)
    uid = a.text("UploadId")
    if a.status != 200 or not uid:
        raise Unjudgeable(f"CreateMultipartUpload {key} answered {st(a)}")
    return uid


def upload_part(t: Target, b: str, key: str, uid: str, n: int, body: bytes,
                headers: dict[str, str] | None = None) -> Answer:
    a = t.request("PUT", b, key, query={"partNumber": str(n), "uploadId": uid}, body=body, headers=headers)
    if a.status != 200:
        raise Unjudgeable(f"UploadPart {n} ({len(body)} bytes) of {key} answered {st(a)}")
    return a


def complete_xml(parts: list[tuple[int, str]], extra: dict[int, str] | None = None) -> bytes:
    """<CompleteMultipartUpload> listing (number, etag) in the order given; extra[n] is raw XML added to part n."""
    out = "<CompleteMultipartUpload>"
    for n, etag in parts:
        out += f"<Part><PartNumber>{n}</PartNumber><ETag>{etag}</ETag>{(extra or {}).get(n, '')}</Part>"
    return (out + "</CompleteMultipartUpload>").encode()


def complete(t: Target, b: str, key: str, uid: str, parts: list[tuple[int, str]],
             headers: dict[str, str] | None = None, extra: dict[int, str] | None = None) -> Answer:
    return t.request("POST", b, key, query={"uploadId": uid}, body=complete_xml(parts, extra), headers=headers)


def completed(a: Answer) -> bool:
    """Complete succeeded: 200 and not an Error document (Amazon S3 may report an error inside a 200)."""
    return a.status == 200 and a.root != "Error"


def upload(t: Target, b: str, key: str, sizes: list[int], seed: int) -> tuple[str, list[tuple[int, str]], list[bytes]]:
    """An upload with parts 1..n of the given sizes: (upload id, [(number, etag)], bodies)."""
    uid = create_upload(t, b, key)
    parts, bodies = [], []
    for i, size in enumerate(sizes):
        body = data(size, seed + i)
        a = upload_part(t, b, key, uid, i + 1, body)
        parts.append((i + 1, a.header("etag") or f'"{md5hex(body)}"'))
        bodies.append(body)
    return uid, parts, bodies


def show(sizes: list[int]) -> str:
    return "[" + ", ".join("5 MiB" if s == MIB5 else f"5 MiB+{s - MIB5}" if s > MIB5 else f"{s} B" for s in sizes) + "]"


@probe("s3.mpu.list-parts")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "listed.bin")
    sent = {}
    # No part of 0 bytes: whether one is taken is s3.mpu.zero-length-part's, not a precondition here.
    for n, body in ((2, b"defg"), (1, b"abc"), (3, b"h")):
        a = upload_part(t, b, "listed.bin", uid, n, body)
        sent[n] = (len(body), md5hex(body))
    a = t.request("GET", b, "listed.bin", query={"uploadId": uid})
    seen = {}
    for p in a.all("Part"):
        try:
            seen[int(child_text(p, "PartNumber") or "")] = (int(child_text(p, "Size") or ""), bare(child_text(p, "ETag")))
        except ValueError:
            pass
    return judge(a.status == 200 and seen == sent,
                 f"ListParts answered {a.status} listing {seen} (number: (size, etag)); uploaded {sent}")


@probe("s3.mpu.list-uploads")
def _(t: Target):
    b = t.new_bucket()
    open1 = create_upload(t, b, "open-1.bin")
    open2 = create_upload(t, b, "dir/open-2.bin")
    done = create_upload(t, b, "done.bin")
    p = upload_part(t, b, "done.bin", done, 1, b"x")
    c = complete(t, b, "done.bin", done, [(1, p.header("etag") or "")])
    a = t.request("GET", b, query={"uploads": ""})
    listed = {(child_text(u, "Key"), child_text(u, "UploadId")) for u in a.all("Upload")}
    want = {("open-1.bin", open1), ("dir/open-2.bin", open2)}
    # A Complete the target refused leaves that upload in progress: listed too, not a precondition.
    if not completed(c):
        want.add(("done.bin", done))
    return judge(a.status == 200 and listed == want,
                 f"ListMultipartUploads answered {st(a)} listing {sorted(listed)}; in progress {sorted(want)} "
                 + (f"(a completed upload, {done}, is no longer in progress)" if completed(c)
                    else f"(Complete of {done} answered {st(c)}, so it is still in progress)"))


@probe("s3.mpu.zero-length-part")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "empty-part.bin")
    a = t.request("PUT", b, "empty-part.bin", query={"partNumber": "1", "uploadId": uid}, body=b"")
    a2 = t.request("PUT", b, "empty-part.bin", query={"partNumber": "2", "uploadId": uid}, body=b"")
    ok = a.status == 200 and a2.status == 200 and a.root != "Error"
    return judge(ok, f"UploadPart of 0 bytes (parts 1 and 2) answered {a.status} and {a2.status}, "
                     f"ETag {a.header('etag')!r} (MD5 of nothing is d41d8cd98f00b204e9800998ecf8427e)")


def unequal_refused(t: Target, twin: list[int], bad: list[list[int]]):
    """The twin's sizes complete on this target; each bad list is refused at Complete and creates nothing."""
    b = t.new_bucket()
    uid, parts, _ = upload(t, b, "twin.bin", twin, 1)
    twin_c = complete(t, b, "twin.bin", uid, parts)
    seen, ok, carried = [f"parts {show(twin)}: Complete {st(twin_c)}"], True, []
    for i, sizes in enumerate(bad):
        key = f"unequal-{i}.bin"
        uid, parts, _ = upload(t, b, key, sizes, 10 + 10 * i)
        c = complete(t, b, key, uid, parts)
        h = t.request("HEAD", b, key)
        refused = not completed(c) and 400 <= c.status < 500 and h.status == 404
        ok &= refused
        seen.append(f"parts {show(sizes)}: Complete {st(c)}, then HEAD {h.status}")
        if completed(c) or h.status == 200:
            carried.append(seen[-1])
    if not completed(twin_c):
        # Equal parts refused too, a refusal proves nothing; unequal parts completed depart.
        if carried:
            return judge(False, "; ".join(carried) + f" (equal parts but the last: Complete {st(twin_c)})")
        raise Unjudgeable(f"Complete of parts {show(twin)} (equal but the last) answered {st(twin_c)}; "
                          + "; ".join(seen[1:]))
    return judge(ok, "; ".join(seen))


@probe("s3.mpu.unequal-parts-rejected")
def _(t: Target):
    return unequal_refused(t, [MIB5, MIB5, 10], [[MIB5, MIB5 + 1024, 10], [MIB5 + 1024, MIB5, 10]])


@probe("s3.limit.part-size")
def _(t: Target):
    # Equal non-last parts (the last shorter, or longer) are accepted; unequal non-last parts are not.
    b = t.new_bucket()
    uid, parts, _ = upload(t, b, "last-longer.bin", [MIB5, MIB5 + 1024], 5)
    c = complete(t, b, "last-longer.bin", uid, parts)
    if not completed(c):
        return judge(False, f"parts {show([MIB5, MIB5 + 1024])} (only the last differs): Complete answered "
                            f"{st(c)}; the limit exempts the last part")
    out = unequal_refused(t, [MIB5, MIB5, 10], [[MIB5 + 1024, MIB5, 10]])
    out.reason = f"parts {show([MIB5, MIB5 + 1024])}: Complete {c.status}; " + out.reason
    return out


@probe("s3.mpu.size-checked-at-complete")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "unequal.bin")
    sizes = [MIB5 + 1024, MIB5, 10]
    parts, seen = [], []
    for i, size in enumerate(sizes):
        a = t.request("PUT", b, "unequal.bin", query={"partNumber": str(i + 1), "uploadId": uid}, body=data(size, 40 + i))
        seen.append(f"UploadPart {i + 1} ({size} B) {st(a)}")
        if a.status != 200:
            return judge(False, "; ".join(seen) + ": a part was refused at UploadPart")
        parts.append((i + 1, a.header("etag") or ""))
    c = complete(t, b, "unequal.bin", uid, parts)
    h = t.request("HEAD", b, "unequal.bin")
    seen.append(f"Complete {st(c)}")
    seen.append(f"HEAD {h.status}")
    refused = not completed(c) and 400 <= c.status < 500 and h.status == 404
    # The valid twin: equal parts but the last complete here, or the refusal says nothing of sizes.
    tid, tparts, _ = upload(t, b, "equal.bin", [MIB5, MIB5, 10], 60)
    twin = complete(t, b, "equal.bin", tid, tparts)
    if not completed(twin):
        if not refused:
            return judge(False, "; ".join(seen) + f" (equal parts but the last: Complete {st(twin)})")
        raise Unjudgeable("; ".join(seen) + f", but parts [5 MiB, 5 MiB, 10 B] were refused at Complete too "
                          f"({st(twin)})")
    return judge(refused, "; ".join(seen) + f"; parts [5 MiB, 5 MiB, 10 B]: Complete {st(twin)} "
                          "(accepted part by part, to be refused at Complete)")


@probe("s3.mpu.complete-sorts-parts")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for i, order in enumerate(([3, 1, 2], [2, 3, 1])):
        key = f"sorted-{i}.bin"
        uid, parts, bodies = upload(t, b, key, [MIB5, MIB5, 100], 20 + 10 * i)
        c = complete(t, b, key, uid, [parts[n - 1] for n in order])
        g = t.request("GET", b, key)
        want = b"".join(bodies)
        good = completed(c) and g.status == 200 and g.body == want
        ok &= good
        seen.append(f"parts listed as {order}: Complete {st(c)}, GET {g.status} of {len(g.body)} bytes "
                    f"{'= parts 1,2,3 in order' if g.body == want else '!= parts 1,2,3 in order'}")
    return judge(ok, "; ".join(seen))


@probe("s3.mpu.etag-quotes-ignored")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for style in ("bare", "leading", "trailing", "quoted"):
        key = f"q-{style}.bin"
        body = f"part with {style} etag".encode()
        uid = create_upload(t, b, key)
        upload_part(t, b, key, uid, 1, body)
        m = md5hex(body)
        etag = {"bare": m, "leading": f'"{m}', "trailing": f'{m}"', "quoted": f'"{m}"'}[style]
        c = complete(t, b, key, uid, [(1, etag)])
        g = t.request("GET", b, key)
        good = completed(c) and g.status == 200 and g.body == body
        ok &= good
        seen.append(f"ETag {etag}: Complete {st(c)}, GET {g.status}")
    return judge(ok, "; ".join(seen))


@probe("s3.mpu.etag-format")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for sizes in ([300], [MIB5, 100]):
        key = f"etag-{len(sizes)}.bin"
        uid, parts, bodies = upload(t, b, key, sizes, 50)
        want = f"{hashlib.md5(b''.join(hashlib.md5(x).digest() for x in bodies)).hexdigest()}-{len(bodies)}"
        c = complete(t, b, key, uid, parts)
        if not completed(c):
            if not ok:
                break  # an earlier object already departs
            raise Unjudgeable(f"Complete of {show(sizes)} answered {st(c)}")
        h = t.request("HEAD", b, key)
        ce, he = bare(c.text("ETag")), bare(h.header("etag"))
        ok &= ce == want and he == want
        seen.append(f"{len(sizes)} part(s): Complete ETag {ce!r}, HEAD ETag {he!r}, MD5 of part MD5s {want!r}")
    return judge(ok, "; ".join(seen))


@probe("s3.mpu.list-uploads-encoding")
def _(t: Target):
    b = t.new_bucket()
    keys = ["mpu-é.txt", "mpu-a&b<c>.txt"]
    for k in keys:
        create_upload(t, b, k)
    plain = t.request("GET", b, query={"uploads": ""})
    plain_keys = sorted(child_text(u, "Key") or "" for u in plain.all("Upload"))
    if plain.status != 200 or plain_keys != sorted(keys):
        raise Unjudgeable(f"ListMultipartUploads without encoding-type answered {plain.status} listing {plain_keys}")
    a = t.request("GET", b, query={"uploads": "", "encoding-type": "url"})
    got = [child_text(u, "Key") or "" for u in a.all("Upload")]
    decoded = sorted(urllib.parse.unquote(k) for k in got)
    encoded = all(k.isascii() and not any(ch in k for ch in "&<>") for k in got)
    return judge(a.status == 200 and decoded == sorted(keys) and encoded,
                 f"with encoding-type=url: {a.status}, Keys {got} (decoding to {decoded}); without: {plain_keys}")


@probe("s3.mpu.conditional-complete-aborts")
def _(t: Target):
    b = t.new_bucket()
    # The valid twin: the same Complete without a condition completes on this target.
    uid = create_upload(t, b, "twin.txt")
    p = upload_part(t, b, "twin.txt", uid, 1, b"abc")
    c = complete(t, b, "twin.txt", uid, [(1, p.header("etag") or "")])
    if not completed(c):
        raise Unjudgeable(f"Complete without a condition answered {st(c)}")
    put = t.put(b, "exists.txt", b"already-here")
    seen, ok = [], True
    for cond in ({"If-None-Match": "*"}, {"If-Match": '"00000000000000000000000000000000"'}):
        uid = create_upload(t, b, "exists.txt")
        p = upload_part(t, b, "exists.txt", uid, 1, b"abc")
        parts = [(1, p.header("etag") or "")]
        first = complete(t, b, "exists.txt", uid, parts, headers=cond)
        again = complete(t, b, "exists.txt", uid, parts)
        g = t.request("GET", b, "exists.txt")
        # Refused, each: a client error, whichever (a server error refuses nothing).
        good = (400 <= first.status < 500 and 400 <= again.status < 500 and g.body == b"already-here"
                and g.header("etag") == put.header("etag"))
        ok &= good
        (name, value), = cond.items()
        state = "unchanged" if g.body == b"already-here" else f"now {g.body[:20]!r}"
        seen.append(f"{name}: {value}: Complete {st(first)}, Complete again without it "
                    f"{st(again)}, object {state}")
    return judge(ok, "; ".join(seen))


@probe("s3.mpu.abort-repeatable")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "aborted.bin")
    upload_part(t, b, "aborted.bin", uid, 1, b"abc")
    first = t.request("DELETE", b, "aborted.bin", query={"uploadId": uid})
    if first.status not in (200, 204) or first.root == "Error":
        raise Unjudgeable(f"the first AbortMultipartUpload answered {st(first)}")
    again = [t.request("DELETE", b, "aborted.bin", query={"uploadId": uid}) for _ in range(2)]
    ok = all(a.status in (200, 204) and a.root != "Error" for a in again)
    shown = ", ".join(st(a) for a in again)
    # What remains is an aborted upload: a 204 from a target that took the call for a DeleteObject
    # (no error for a missing key either) aborted nothing, and ListParts still lists it.
    parts = t.request("GET", b, "aborted.bin", query={"uploadId": uid})
    if parts.status == 200 and parts.root == "ListPartsResult":
        return judge(False, f"Abort {first.status}, then again {shown}, but ListParts of the upload then answered "
                            "200: nothing was aborted")
    return judge(ok, f"Abort {first.status}, then again {shown}; ListParts then {st(parts)}")


@probe("s3.mpu.complete-repeatable")
def _(t: Target):
    b = t.new_bucket()
    uid = create_upload(t, b, "twice.txt")
    p = upload_part(t, b, "twice.txt", uid, 1, b"once-only")
    parts = [(1, p.header("etag") or "")]
    c1 = complete(t, b, "twice.txt", uid, parts)
    if not completed(c1):
        raise Unjudgeable(f"the first Complete answered {st(c1)}")
    g1 = t.request("GET", b, "twice.txt")
    c2 = complete(t, b, "twice.txt", uid, parts)
    g2 = t.request("GET", b, "twice.txt")
    same = all(c1.text(f) == c2.text(f) for f in ("Bucket", "Key", "ETag"))
    ok = completed(c2) and same and g2.status == 200 and g2.body == g1.body and g2.header("etag") == g1.header("etag")
    return judge(ok, f"Complete {c1.status} ETag {c1.text('ETag')}; again {st(c2)} ETag {c2.text('ETag')} "
                     f"Key {c2.text('Key')!r}; GET after: {g2.status} {g2.body[:20]!r} ETag {g2.header('etag')} "
                     f"(before: {g1.body[:20]!r} ETag {g1.header('etag')})")


# Checksums of multipart uploads.

def crc32c(b: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in b:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _table() -> list[int]:
    out = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


CRC32C_TABLE = _table()


def digest(alg: str, b: bytes) -> bytes:
    if alg == "crc32c":
        return crc32c(b).to_bytes(4, "big")
    if alg == "crc32":
        return zlib.crc32(b).to_bytes(4, "big")
    return hashlib.new(alg, b).digest()


def checksum(alg: str, b: bytes) -> str:
    return base64.b64encode(digest(alg, b)).decode()


@probe("s3.checksum.multipart-composite")
def _(t: Target):
    b = t.new_bucket()
    seen, ok = [], True
    for alg, tag in (("sha256", "SHA256"), ("crc32c", "CRC32C")):
        key = f"{alg}.bin"
        uid = create_upload(t, b, key, headers={"x-amz-checksum-algorithm": tag})
        bodies = [data(MIB5, 31), b"checksum-tail"]
        parts, sums, answered = [], [], []
        for i, body in enumerate(bodies):
            s = checksum(alg, body)
            a = upload_part(t, b, key, uid, i + 1, body,
                            headers={f"x-amz-checksum-{alg}": s, "x-amz-sdk-checksum-algorithm": tag})
            parts.append((i + 1, a.header("etag") or ""))
            sums.append(s)
            answered.append(a.header(f"x-amz-checksum-{alg}"))
        composite = base64.b64encode(digest(alg, b"".join(base64.b64decode(s) for s in sums))).decode() + f"-{len(sums)}"
        extra = {n: f"<Checksum{tag}>{s}</Checksum{tag}>" for (n, _), s in zip(parts, sums)}
        c = complete(t, b, key, uid, parts, extra=extra, headers={f"x-amz-checksum-{alg}": composite})
        h = t.request("HEAD", b, key, headers={"x-amz-checksum-mode": "ENABLED"})
        got_c, got_h = c.text(f"Checksum{tag}"), h.header(f"x-amz-checksum-{alg}")
        good = answered == sums and completed(c) and got_c == composite and got_h == composite
        ok &= good
        seen.append(f"{tag}: UploadPart answered {answered} (sent {sums}); Complete {st(c)} "
                    f"Checksum{tag} {got_c!r}; HEAD {h.status} x-amz-checksum-{alg} {got_h!r}; composite {composite!r}"
                    )
    return judge(ok, "; ".join(seen))
