#!/usr/bin/env python3
"""A small S3 front for testing the probes: it passes every request to an upstream S3 endpoint
(the reference, moto) unchanged, except where one chosen habit of an implementation nobody here
tuned against answers instead. Each habit is one a production target showed, on which a probe once
judged wrong; test/truth-habits.test.ts holds each probe to it.

    python3 test/truth/front.py --upstream http://127.0.0.1:9000 --key K --secret S --habit NAME

Listens on 127.0.0.1 (a free port), prints {"port": N} on one line, serves until stdin closes.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import http.server
import json
import re
import sys
import threading
import urllib.parse
from typing import Callable
from xml.sax.saxutils import escape

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


class Exchange:
    """One request as received, and the upstream it may be passed to."""

    def __init__(self, front: "Front", method: str, target: str, headers: dict[str, str], body: bytes):
        self.front, self.method, self.target, self.headers, self.body = front, method, target, headers, body
        parts = urllib.parse.urlsplit(target)
        self.path = parts.path
        self.query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
        self.segments = [s for s in self.path.split("/") if s]

    @property
    def bucket_level(self) -> bool:
        return len(self.segments) == 1

    def forward(self) -> tuple[int, dict[str, str], bytes]:
        return self.front.send(self.method, self.target, self.headers, self.body)


Answer = tuple[int, dict[str, str], bytes]


def error(status: int, code: str | None, message: str = "") -> Answer:
    if code is None:
        return status, {"content-length": "0"}, b""
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            f"<Message>{escape(message)}</Message></Error>").encode()
    return status, {"content-type": "application/xml"}, body


def empty_error_bodies(x: Exchange) -> Answer:
    """Every error answer loses its body: `400` with nothing to say which error (as some gateways do)."""
    status, headers, body = x.forward()
    if status >= 400:
        return status, {k: v for k, v in headers.items() if k != "content-type"}, b""
    return status, headers, body


def no_error_messages(x: Exchange) -> Answer:
    """Every error answer keeps its code but sends an empty <Message>."""
    status, headers, body = x.forward()
    if status >= 400 and body:
        body = re.sub(rb"<Message>.*?</Message>", b"<Message></Message>", body, flags=re.S)
    return status, headers, body


def subresource_delete_deletes_bucket(x: Exchange) -> Answer:
    """DELETE /bucket?encryption and ?lifecycle delete the bucket too when it is empty, answering 204."""
    status, headers, body = x.forward()
    if x.method == "DELETE" and x.bucket_level and ("encryption" in x.query or "lifecycle" in x.query):
        x.front.signed("DELETE", "/" + x.segments[0])
    return status, headers, body


def unquoted_copy_part_etag(x: Exchange) -> Answer:
    """UploadPartCopy answers its CopyPartResult ETag without the double quotes."""
    status, headers, body = x.forward()
    if x.method == "PUT" and "uploadId" in x.query and "x-amz-copy-source" in {k.lower() for k in x.headers}:
        body = re.sub(rb"<ETag>(?:&quot;|\")?([0-9a-fA-F]+)(?:&quot;|\")?</ETag>", rb"<ETag>\1</ETag>", body)
    return status, headers, body


def inverted_encryption(x: Exchange) -> Answer:
    """PutBucketEncryption refuses AES256 with 501 and answers 200 to any other algorithm, storing nothing."""
    if x.method == "PUT" and x.bucket_level and "encryption" in x.query:
        if b"AES256" in x.body:
            return error(501, "NotImplemented", "A header you provided implies functionality that is not implemented.")
        return 200, {"content-length": "0"}, b""
    return x.forward()


def delete_object_200(x: Exchange) -> Answer:
    """DeleteObject answers 200 (not 204) for a key that exists and 404 NoSuchKey for one that does not."""
    if x.method == "DELETE" and len(x.segments) >= 2 and not x.query:
        head, _, _ = x.front.signed("HEAD", x.path)
        if head == 404:
            return error(404, "NoSuchKey", "The specified key does not exist.")
        status, headers, body = x.forward()
        return (200 if status == 204 else status), headers, body
    return x.forward()


ECHOED = ("Delimiter", "Marker", "NextMarker", "StartAfter")


def unencoded_list_echo(x: Exchange) -> Answer:
    """With encoding-type url, a listing encodes Key and CommonPrefixes/Prefix but sends the Prefix
    echo, Delimiter, Marker, NextMarker and StartAfter as stored (boto3's paginator loops on it)."""
    status, headers, body = x.forward()
    if x.method != "GET" or not x.bucket_level or x.query.get("encoding-type") != "url" or "uploads" in x.query:
        return status, headers, body
    text = body.decode("utf-8")

    def decoded(m: re.Match) -> str:
        return f"<{m.group(1)}>{escape(urllib.parse.unquote_plus(m.group(2)))}</{m.group(1)}>"

    text = re.sub(r"<(" + "|".join(ECHOED) + r")>([^<]*)</\1>", decoded, text)
    text = re.sub(r"(?<!<CommonPrefixes>)<(Prefix)>([^<]*)</Prefix>", decoded, text)
    return status, headers, text.encode("utf-8")


def complete_always_400(x: Exchange) -> Answer:
    """CompleteMultipartUpload is refused with 400 InvalidPart whatever the parts are."""
    if x.method == "POST" and "uploadId" in x.query:
        return error(400, "InvalidPart", "One or more of the specified parts could not be found.")
    return x.forward()


def configuration_puts_501(x: Exchange) -> Answer:
    """Every PUT of a configuration (a bucket or object subresource: ?cors, ?tagging, ?object-lock ...)
    is answered 501 NotImplemented, supported or not."""
    if x.method == "PUT" and x.query and not ({"uploadId", "partNumber"} & set(x.query)):
        return error(501, "NotImplemented", "A header you provided implies functionality that is not implemented.")
    return x.forward()


def bare_etags(x: Exchange) -> Answer:
    """The ETag header of every answer is sent without its double quotes; conditions with the quoted
    tag still match it."""
    status, headers, body = x.forward()
    if "etag" in headers:
        headers = {**headers, "etag": headers["etag"].strip('"')}
    return status, headers, body


def no_wildcard_origins(x: Exchange) -> Answer:
    """PutBucketCors refuses a rule with AllowedOrigin * (400 InvalidRequest); named origins are stored."""
    if x.method == "PUT" and x.bucket_level and "cors" in x.query and b"<AllowedOrigin>*</AllowedOrigin>" in x.body:
        return error(400, "InvalidRequest", "AllowedOrigin * is not supported.")
    return x.forward()


def no_content_range(x: Exchange) -> Answer:
    """A ranged GET is answered 206 with the right bytes but no Content-Range header."""
    status, headers, body = x.forward()
    return status, {k: v for k, v in headers.items() if k != "content-range"}, body


def no_zero_length_parts(x: Exchange) -> Answer:
    """UploadPart of 0 bytes is refused with 400 EntityTooSmall; every other part is taken."""
    if x.method == "PUT" and "uploadId" in x.query and "partNumber" in x.query and not x.body:
        if "x-amz-copy-source" not in {k.lower() for k in x.headers}:
            return error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size.")
    return x.forward()


def sse_copy_dropped(x: Exchange) -> Answer:
    """CopyObject drops x-amz-server-side-encryption from its answer, and an upload created with it
    is refused with 501 (so UploadPartCopy into one cannot be tried)."""
    sse = {k.lower(): v for k, v in x.headers.items()}.get("x-amz-server-side-encryption")
    if sse and x.method == "POST" and "uploads" in x.query:
        return error(501, "NotImplemented", "A header you provided implies functionality that is not implemented.")
    status, headers, body = x.forward()
    if x.method == "PUT" and "x-amz-copy-source" in {k.lower() for k in x.headers} and "uploadId" not in x.query:
        headers = {k: v for k, v in headers.items() if k != "x-amz-server-side-encryption"}
    return status, headers, body


def throttle_every_third(x: Exchange) -> Answer:
    """Every third request is answered 429 SlowDown with Retry-After: 0, once: the same request sent
    again goes through (a busy service)."""
    front = x.front
    key = (x.method, x.target, hashlib.sha256(x.body).hexdigest())
    with front.lock:
        front.seen += 1
        again = key in front.throttled
        front.throttled.discard(key)
        throttle = not again and front.seen % 3 == 0
        if throttle:
            front.throttled.add(key)
    if throttle:
        status, headers, body = error(429, "SlowDown", "Please reduce your request rate.")
        return status, {**headers, "Retry-After": "0"}, body
    return x.forward()


def delete_bucket_refused_once(x: Exchange) -> Answer:
    """The first DeleteBucket of each bucket is answered 409 OperationAborted; the next goes through."""
    if x.method == "DELETE" and x.bucket_level and not x.query:
        with x.front.lock:
            first = x.segments[0] not in x.front.throttled
            x.front.throttled.add(x.segments[0])
        if first:
            return error(409, "OperationAborted", "A conflicting conditional operation is in progress.")
    return x.forward()


def abort_as_delete_object(x: Exchange) -> Answer:
    """AbortMultipartUpload is carried out as DeleteObject of its key: 204, the upload untouched."""
    if x.method == "DELETE" and len(x.segments) >= 2 and "uploadId" in x.query:
        return x.front.signed("DELETE", x.path)
    return x.forward()


def unavailable(x: Exchange) -> Answer:
    """Every request is answered 503 SlowDown with Retry-After: 0 (a service that is down)."""
    status, headers, body = error(503, "SlowDown", "Please reduce your request rate.")
    return status, {**headers, "Retry-After": "0"}, body


def refuse_large_bodies_early(x: Exchange) -> Answer:
    """Stands for the habit below, which answers before a body is read (see EARLY)."""
    return x.forward()


def large_body_refused(method: str, headers: dict[str, str]) -> Answer | None:
    """A body over 1 MiB is refused with 400 EntityTooLarge at once, before it is read, and the
    connection closed: the client meets a broken pipe while the answer waits in its socket."""
    length = int({k.lower(): v for k, v in headers.items()}.get("content-length") or 0)
    return error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.") if length > 1 << 20 else None


# Habits that answer from the request line and headers alone, without reading the body.
EARLY: dict[str, Callable[[str, dict[str, str]], Answer | None]] = {
    "refuse-large-bodies-early": large_body_refused,
}

HABITS: dict[str, Callable[[Exchange], Answer]] = {
    "refuse-large-bodies-early": refuse_large_bodies_early,
    "abort-as-delete-object": abort_as_delete_object,
    "bare-etags": bare_etags,
    "complete-always-400": complete_always_400,
    "configuration-puts-501": configuration_puts_501,
    "no-content-range": no_content_range,
    "no-wildcard-origins": no_wildcard_origins,
    "no-zero-length-parts": no_zero_length_parts,
    "sse-copy-dropped": sse_copy_dropped,
    "throttle-every-third": throttle_every_third,
    "unavailable": unavailable,
    "empty-error-bodies": empty_error_bodies,
    "no-error-messages": no_error_messages,
    "subresource-delete-deletes-bucket": subresource_delete_deletes_bucket,
    "unquoted-copy-part-etag": unquoted_copy_part_etag,
    "inverted-encryption": inverted_encryption,
    "delete-bucket-refused-once": delete_bucket_refused_once,
    "delete-object-200": delete_object_200,
    "unencoded-list-echo": unencoded_list_echo,
}


class Front:
    def __init__(self, upstream: str, key: str, secret: str, region: str, habit: Callable[[Exchange], Answer],
                 early: Callable[[str, dict[str, str]], Answer | None] | None = None):
        self.early = early
        self.lock, self.seen, self.throttled = threading.Lock(), 0, set()
        parts = urllib.parse.urlsplit(upstream)
        self.host, self.port, self.netloc = parts.hostname, parts.port, parts.netloc
        self.upstream, self.key, self.secret, self.region, self.habit = upstream.rstrip("/"), key, secret, region, habit

    def send(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.endheaders(body or None)
            res = conn.getresponse()
            data = res.read() if method != "HEAD" else b""
            return res.status, {k.lower(): v for k, v in res.getheaders()}, data
        finally:
            conn.close()

    def signed(self, method: str, path: str) -> Answer:
        """A request of the front's own (a habit's side effect), signed with the upstream's credentials."""
        req = AWSRequest(method=method, url=self.upstream + path, data=b"")
        req.headers["x-amz-content-sha256"] = hashlib.sha256(b"").hexdigest()
        S3SigV4Auth(Credentials(self.key, self.secret), "s3", self.region).add_auth(req)
        headers = {**dict(req.headers.items()), "Host": self.netloc}
        return self.send(method, path, headers, b"")


def handler_for(front: Front):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet: the probes' transcripts show every exchange
            pass

        def handle_one(self) -> None:
            headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
            answered = front.early(self.command, headers) if front.early else None
            if answered is not None:
                # Answered before the body is read; closing then leaves the rest of it unread.
                self.close_connection = True
                status, out, data = answered
                out = {**out, "Connection": "close"}
            else:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    status, out, data = front.habit(Exchange(front, self.command, self.path, headers, body))
                except OSError as e:
                    status, out, data = error(502, "FrontUpstreamUnreachable", str(e))
            self.send_response(status)
            for k, v in out.items():
                if k.lower() not in ("content-length", "transfer-encoding", "date", "server"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_OPTIONS = handle_one

    return Handler


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--secret", required=True)
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--habit", required=True, choices=sorted(HABITS))
    args = ap.parse_args(argv)
    front = Front(args.upstream, args.key, args.secret, args.region, HABITS[args.habit], EARLY.get(args.habit))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(front))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    sys.stdin.read()  # the test that started the front stops it by closing stdin (or ending the process)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
