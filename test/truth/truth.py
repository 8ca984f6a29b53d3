#!/usr/bin/env python3
"""An independent judge of S3 clauses: no edgecheck code, only AWS's own signer (botocore),
boto3 and plain HTTP (http.client).

Each probe (probes_*.py beside this file) decides one clause of suites/s3/clauses.yaml on a live
S3 endpoint and prints the requests and answers it decided on. edgecheck's baselines
(baselines/*.yaml) are held to it: a departure a baseline lists must be one a probe shows here.

    python3 test/truth/truth.py --endpoint http://127.0.0.1:5055 --region us-east-1 \
        --key testing --secret testing [--json] [CLAUSE_ID ...]

Outcomes: `holds` (the target does what the clause says), `departs` (it does not, and the
transcript shows where), `unjudgeable` (the probe's own answers cannot decide it: a valid twin or a
step it needs was refused, or the target stayed unavailable: the transcript says which). As the
suite judges: a refusal whose valid twin was refused too decides nothing, but one carried out, or
refused otherwise than the clause says, departs; and a clause some of whose inputs were decided
holds on them, naming the others. Each
result also lists what the probe left on the target (`left`: a bucket HeadBucket still finds, with
the AWS CLI command that removes it). Exit 0 once every named probe ran; 2 on bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import importlib
import json
import pathlib
import secrets
import sys
import time
import traceback
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Callable

from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

PROBES: dict[str, Callable[["Target"], "Outcome"]] = {}
HERE = pathlib.Path(__file__).resolve().parent
BODY_SHOWN = 600


def probe(clause: str):
    """Registers the decorated function as the judge of `clause`."""

    def register(fn):
        if clause in PROBES:
            raise SystemExit(f"truth.py: two probes for {clause}")
        PROBES[clause] = fn
        return fn

    return register


@dataclass
class Outcome:
    outcome: str  # holds | departs | unjudgeable
    reason: str


def holds(reason: str) -> Outcome:
    return Outcome("holds", reason)


def departs(reason: str) -> Outcome:
    return Outcome("departs", reason)


def unjudgeable(reason: str) -> Outcome:
    return Outcome("unjudgeable", reason)


def judge(ok: bool, reason: str) -> Outcome:
    """holds when ok, else departs; the reason says what was seen either way."""
    return holds(reason) if ok else departs(reason)


class Tally:
    """Inputs of one clause: any departure decides; an input whose valid twin was refused, or whose
    branch the target did not take, is left undecided, and the clause holds on the inputs that were
    decided, when one was; it is unjudgeable only when none was."""

    def __init__(self) -> None:
        self.ok: list[str] = []
        self.bad: list[str] = []
        self.undecided: list[str] = []

    def check(self, ok: bool, seen: str) -> bool:
        (self.ok if ok else self.bad).append(seen)
        return ok

    def skip(self, why: str) -> None:
        self.undecided.append(why)

    def refused_anyway(
        self, bad: "Answer", seen: str, twin: str, stored: bool = False, as_named: bool = True
    ) -> None:
        """An input refused by the clause, whose valid twin the target refused too: its refusal as the
        clause names it (`as_named`) proves nothing (undecided), but its acceptance (or what it
        stored), or a refusal with another status or code, is a departure whatever the twin got."""
        if accepted(bad) or stored:
            self.bad.append(f"{seen}: carried out, though the clause refuses it (its valid twin: {twin})")
        elif not as_named:
            self.bad.append(f"{seen}: refused otherwise than the clause says (its valid twin: {twin})")
        else:
            self.undecided.append(f"{seen}, but its valid twin was refused too ({twin})")

    def outcome(self) -> Outcome:
        if self.bad:
            return departs("; ".join(self.bad))
        if not self.ok:
            return unjudgeable("; ".join(self.undecided))
        left = f" (not decided: {'; '.join(self.undecided)})" if self.undecided else ""
        return holds("; ".join(self.ok) + left)


def accepted(a: "Answer") -> bool:
    """The request was carried out: 2xx, and no Error document (Amazon S3 may send one inside a 200)."""
    return 200 <= a.status < 300 and a.root != "Error"


def st(a: "Answer") -> str:
    """An answer's status and S3 error code, in a few characters: `412 PreconditionFailed`. An error
    answer is shown as the target sent it: `400 (empty body)`, `404 NoSuchBucket (no message)`,
    `500 (not an S3 error: <html>)`; a HEAD answer has no body to show."""
    shown = f"{a.status}{' ' + a.code if a.code else ''}"
    if a.status < 300 or a.method == "HEAD":
        return shown
    if not a.body:
        return shown + " (empty body)"
    if a.root == "Error":
        if not a.code:
            shown += " (no code)"
        if not (a.text("Message") or "").strip():
            shown += " (no message)"
        return shown
    return shown + f" (not an S3 error: {excerpt(a.body)[:40]})"


def bucket_gone(t: "Target", bucket: str) -> str | None:
    """Why `bucket` is no longer there (HeadBucket 404, or NoSuchBucket), or None while HeadBucket finds it.

    A call on a bucket's subresource (DELETE ?encryption, ?lifecycle) answered 204 by a target that
    deleted the bucket instead has the answer of support by a side effect: read the bucket back."""
    h = t.request("HEAD", bucket)
    if h.status == 200:
        return None
    return f"the bucket is gone afterwards (HeadBucket {st(h)})"


class Unjudgeable(Exception):
    """Raised by a probe's setup step that the target refused: the clause cannot be decided."""


class NoAnswer(Unjudgeable):
    """A request got no answer (closed, timed out) or stayed throttled: nothing to judge it by."""


THROTTLE_TRIES = 4
UNAVAILABLE = {429, 502, 503, 504}  # as edgecheck's own transports count them


def retry_delay(retry_after: str | None, attempt: int) -> float:
    """Seconds to wait before sending a throttled request again: its Retry-After, capped at 5."""
    try:
        return min(max(float(retry_after or ""), 0.0), 5.0)
    except ValueError:
        return 0.5 * 2**attempt


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    method: str = ""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def xml(self) -> ET.Element | None:
        try:
            return ET.fromstring(self.body)
        except ET.ParseError:
            return None

    def text(self, *path: str) -> str | None:
        """The text of the first element at the local-name path below the root, namespaces ignored."""
        root = self.xml()
        if root is None:
            return None
        node = root
        for name in path:
            node = next((c for c in node if local(c.tag) == name), None)
            if node is None:
                return None
        return node.text or ""

    def all(self, *path: str) -> list[ET.Element]:
        """Every element at the local-name path below the root (the last name may repeat)."""
        root = self.xml()
        if root is None:
            return []
        nodes = [root]
        for name in path:
            nodes = [c for n in nodes for c in n if local(c.tag) == name]
        return nodes

    @property
    def root(self) -> str | None:
        root = self.xml()
        return None if root is None else local(root.tag)

    @property
    def code(self) -> str | None:
        """The S3 error code of an error body."""
        return self.text("Code") if self.root == "Error" else None


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def child_text(node: ET.Element, name: str) -> str | None:
    c = next((c for c in node if local(c.tag) == name), None)
    return None if c is None else (c.text or "")


@dataclass
class Target:
    endpoint: str
    region: str
    key: str
    secret: str
    transcript: list[str] = field(default_factory=list)
    made: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    # A bound on a hang, far past what a loaded machine needs for one exchange on loopback.
    timeout: float = 60.0

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.endpoint).netloc

    def note(self, line: str) -> None:
        self.transcript.append(line)

    def _show(self, method: str, target: str, headers: dict[str, str], body: bytes, ans: Answer) -> None:
        shown = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "x-amz-security-token")}
        if "Authorization" in headers or "authorization" in headers:
            shown["authorization"] = "<SigV4, redacted>"
        self.note(f"> {method} {redact_query(target)}")
        for k, v in shown.items():
            if k.lower() not in ("x-amz-content-sha256", "x-amz-date", "host", "user-agent"):
                self.note(f">   {k}: {v}")
        if body:
            self.note(f">   body {len(body)} bytes: {excerpt(body)}")
        self.note(f"< {ans.status}")
        for k, v in ans.headers.items():
            if k not in ("date", "server", "connection", "x-amzn-requestid", "x-amz-request-id", "x-amz-id-2"):
                self.note(f"<   {k}: {v}")
        if ans.body:
            self.note(f"<   body {len(ans.body)} bytes: {excerpt(ans.body)}")
        elif ans.status >= 300 and method != "HEAD":
            self.note("<   no body")  # an error answer as the target sent it: nothing to say which error

    def request(
        self,
        method: str,
        bucket: str | None = None,
        key: str | None = None,
        query: dict[str, str] | list[tuple[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        sign: bool = True,
        region: str | None = None,
        credentials: tuple[str, str] | None = None,
        raw_headers: dict[str, str] | None = None,
    ) -> Answer:
        """One request, path-style, signed by botocore's SigV4 (unless sign is False)."""
        path = "/"
        if bucket:
            path += bucket
            if key is not None:
                path += "/" + urllib.parse.quote(key, safe="/~")
        pairs = list(query.items()) if isinstance(query, dict) else list(query or [])
        qs = urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote, safe="~")
        url = self.endpoint.rstrip("/") + path + (f"?{qs}" if qs else "")
        hdrs = dict(headers or {})
        if sign:
            req = AWSRequest(method=method, url=url, data=body, headers=hdrs)
            req.headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
            key_id, secret = credentials or (self.key, self.secret)
            S3SigV4Auth(Credentials(key_id, secret), "s3", region if region is not None else self.region).add_auth(req)
            hdrs = dict(req.headers.items())
        hdrs.update(raw_headers or {})
        return self.send(method, path + (f"?{qs}" if qs else ""), hdrs, body)

    def presign(self, method: str, bucket: str | None, key: str | None = None, expires: int = 300,
                query: dict[str, str] | None = None) -> str:
        """A presigned URL from botocore's query signer."""
        path = "/" + (bucket or "")
        if key is not None:
            path += "/" + urllib.parse.quote(key, safe="/~")
        qs = urllib.parse.urlencode(list((query or {}).items()), quote_via=urllib.parse.quote, safe="~")
        url = self.endpoint.rstrip("/") + path + (f"?{qs}" if qs else "")
        req = AWSRequest(method=method, url=url)
        S3SigV4QueryAuth(Credentials(self.key, self.secret), "s3", self.region, expires=expires).add_auth(req)
        return req.url

    def get_url(self, url: str, method: str = "GET", headers: dict[str, str] | None = None) -> Answer:
        parts = urllib.parse.urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return self.send(method, target, dict(headers or {}), b"")

    def send(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        """One request, sent again while the target is unavailable (429 at any time; 502, 503 as
        S3's SlowDown, 504 for a method safe to repeat), after its Retry-After (at most 5 s) or a short
        backoff: a busy target's refusal is no answer to judge. Still unavailable, or no answer at
        all, the clause is unjudgeable (NoAnswer), never a departure."""
        for attempt in range(THROTTLE_TRIES):
            try:
                ans = self.exchange(method, target, headers, body)
            except (http.client.HTTPException, OSError) as e:
                raise NoAnswer(f"{method} {redact_query(target)} got no answer: {type(e).__name__} {e}") from e
            again = ans.status == 429 or (ans.status in UNAVAILABLE and method != "POST")
            if not again or attempt == THROTTLE_TRIES - 1:
                break
            time.sleep(retry_delay(ans.header("retry-after"), attempt))
        if ans.status in UNAVAILABLE:
            raise NoAnswer(f"{method} {redact_query(target)}: the target is unavailable ({st(ans)})")
        return ans

    def exchange(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        """One exchange. A target that answers before the whole body is sent (411, 413, 400) has
        answered: that answer is kept, not the broken pipe the rest of the body met."""
        parts = urllib.parse.urlsplit(self.endpoint)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            names = {k.lower() for k in headers}
            if "host" not in names:
                conn.putheader("Host", parts.netloc)
            for k, v in headers.items():
                conn.putheader(k, v)
            if body and "content-length" not in names and "transfer-encoding" not in names:
                conn.putheader("Content-Length", str(len(body)))
            elif not body and method in ("PUT", "POST") and "content-length" not in names:
                conn.putheader("Content-Length", "0")
            try:
                conn.endheaders(body or None)
            except (BrokenPipeError, ConnectionResetError) as cut:
                self.note(f"> {method} {redact_query(target)}: the target closed while the body was sent "
                          f"({type(cut).__name__}); its answer, if any, follows")
            res = conn.getresponse()
            data = res.read() if method != "HEAD" else b""
            ans = Answer(res.status, {k.lower(): v for k, v in res.getheaders()}, data, method)
        finally:
            conn.close()
        self._show(method, target, headers, body, ans)
        return ans

    # Setup helpers: what the probe creates, cleaned up after it.

    def new_bucket(self, tag: str = "b") -> str:
        name = f"truth-{secrets.token_hex(4)}-{tag}"[:63]
        a = self.request("PUT", name)
        if a.status != 200:
            raise Unjudgeable(f"CreateBucket {name} answered {st(a)}")
        self.made.append(("bucket", name, None))
        return name

    def put(self, bucket: str, key: str, body: bytes = b"hello", headers: dict[str, str] | None = None) -> Answer:
        a = self.request("PUT", bucket, key, headers=headers, body=body)
        if a.status != 200:
            raise Unjudgeable(f"PutObject {bucket}/{key} answered {st(a)}")
        return a

    def cleanup(self) -> list[dict[str, str]]:
        """Empties and deletes every bucket the probe made, outside the transcript, and returns what
        is left: each bucket HeadBucket still finds (200), with the command that removes it. A bucket
        HeadBucket answers 404 for (NoSuchBucket) is gone, whoever removed it; one it answers 403 for
        is not ours (a name that was never created)."""
        saved = self.transcript
        self.transcript = []
        left: list[dict[str, str]] = []
        try:
            for kind, name, _ in reversed(self.made):
                if kind != "bucket" or not name:
                    continue
                try:
                    self.empty_and_delete(name)
                except Exception:  # noqa: BLE001 - what is left is found by HeadBucket below
                    pass
                try:
                    there = self.request("HEAD", name).status == 200
                except Exception:  # noqa: BLE001 - no answer: the bucket may be there
                    there = True
                if there:
                    left.append({"bucket": name, "remove": self.removal(name)})
        finally:
            self.transcript = saved
            self.made = []
        return left

    def empty_and_delete(self, name: str) -> None:
        """Aborts the bucket's uploads, deletes its keys (every page of the listing), then the bucket."""
        ups = self.request("GET", name, query={"uploads": ""})
        for u in ups.all("Upload"):
            self.request("DELETE", name, child_text(u, "Key"), query={"uploadId": child_text(u, "UploadId") or ""})
        for _ in range(50):
            listing = self.request("GET", name)
            keys = [child_text(c, "Key") for c in listing.all("Contents")]
            for key in keys:
                self.request("DELETE", name, key)
            if not keys or listing.text("IsTruncated") != "true":
                break
        self.request("DELETE", name)

    def removal(self, bucket: str) -> str:
        """The AWS CLI command that removes a bucket left behind, with its objects (credentials from
        the environment, never printed)."""
        return (f"aws s3 rb s3://{bucket} --force --endpoint-url {self.endpoint.rstrip('/')} "
                f"--region {self.region or 'us-east-1'}")


def redact_query(target: str) -> str:
    if "X-Amz-Signature=" not in target and "Signature=" not in target:
        return target
    path, _, qs = target.partition("?")
    pairs = urllib.parse.parse_qsl(qs, keep_blank_values=True)
    shown = [(k, "<redacted>" if "signature" in k.lower() or "credential" in k.lower() else v) for k, v in pairs]
    return path + "?" + urllib.parse.urlencode(shown, safe="<>/")


def excerpt(body: bytes) -> str:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return f"<binary, sha256 {hashlib.sha256(body).hexdigest()[:16]}...>"
    text = text.replace("\n", " ")
    return text if len(text) <= BODY_SHOWN else text[:BODY_SHOWN] + "..."


def load_probes() -> None:
    for f in sorted(HERE.glob("probes_*.py")):
        importlib.import_module(f.stem)


def run_one(target: Target, clause: str) -> dict:
    target.transcript = []
    try:
        out = PROBES[clause](target)
    except Unjudgeable as e:
        out = unjudgeable(str(e))
    except Exception as e:  # noqa: BLE001 - a probe that breaks says so, it never passes
        out = Outcome("broken", f"{type(e).__name__}: {e} at {traceback.extract_tb(e.__traceback__)[-1].lineno}")
    finally:
        left = target.cleanup()
    return {"clause": clause, "outcome": out.outcome, "reason": out.reason, "transcript": target.transcript,
            "left": left}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--key", required=True)
    ap.add_argument("--secret", required=True)
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    ap.add_argument("--list", action="store_true", help="list the clauses a probe decides")
    ap.add_argument("clauses", nargs="*")
    args = ap.parse_args(argv)
    load_probes()
    if args.list:
        print("\n".join(sorted(PROBES)))
        return 0
    unknown = [c for c in args.clauses if c not in PROBES]
    if unknown:
        print(f"truth.py: no probe for {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    target = Target(args.endpoint, args.region, args.key, args.secret)
    for clause in args.clauses or sorted(PROBES):
        r = run_one(target, clause)
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{r['clause']}: {r['outcome']}: {r['reason']}")
            for line in r["transcript"]:
                print(f"    {line}")
            for thing in r["left"]:
                print(f"    left on the target: bucket {thing['bucket']}; remove it with: {thing['remove']}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    # Run as the module `truth` that the probe files import, so that they register in one table.
    sys.path.insert(0, str(HERE))
    import truth

    sys.exit(truth.main(sys.argv[1:]))
