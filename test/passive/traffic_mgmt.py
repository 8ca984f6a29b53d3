#!/usr/bin/env python3
"""Everyday management API traffic, as a script of an application's own makes it: the standard
library's urllib only, no edgecheck code and no SDK.

    python3 test/passive/traffic_mgmt.py --base http://127.0.0.1:8787/client/v4 --token T --zone ZONE_ID

It lists zones with per_page, order and direction, reads the zone, creates DNS records (names full
and relative), lists them by name in both directions over pages, reads, changes, replaces and
deletes one, reads the record just deleted and a route no endpoint serves, and reads the zone's
settings. Answers are not judged here: an error answer is part of the traffic. Prints one line per
request (method, path, status) and exits 0 once every request was answered.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


class Client:
    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, query: dict | None = None, body: dict | None = None) -> dict | None:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                status, raw = res.status, res.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        print(f"{method} {path} {status}")
        try:
            return json.loads(raw)
        except ValueError:
            return None


def traffic(c: Client, zone_id: str) -> None:
    c.call("GET", "/zones", {"per_page": 20, "order": "name", "direction": "desc"})
    zone = (c.call("GET", f"/zones/{zone_id}") or {}).get("result") or {}
    zone_name = zone.get("name", "")
    records = f"/zones/{zone_id}/dns_records"
    ids = []
    for i in range(7):
        # Most names full, one relative to the zone: the API takes both.
        name = f"app-{i}" if i == 3 else f"app-{i}.{zone_name}"
        made = c.call("POST", records, body={"type": "A", "name": name, "content": f"192.0.2.{20 + i}", "ttl": 300})
        rid = ((made or {}).get("result") or {}).get("id")
        if rid:
            ids.append(rid)
    for direction in ("desc", "asc"):
        for page in (1, 2):
            c.call("GET", records, {"per_page": 5, "page": page, "order": "name", "direction": direction})
    c.call("GET", records, {"per_page": 20, "page": 1})
    c.call("GET", records, {"type": "A", "per_page": 10})
    if ids:
        one = f"{records}/{ids[0]}"
        c.call("GET", one)
        c.call("PATCH", one, body={"comment": "changed by the application"})
        c.call("PUT", one, body={"type": "A", "name": f"app-0.{zone_name}", "content": "192.0.2.99", "ttl": 120})
    for rid in ids:
        c.call("DELETE", f"{records}/{rid}")
    if ids:
        c.call("GET", f"{records}/{ids[0]}")
    c.call("GET", f"/zones/{zone_id}/no_such_endpoint")
    c.call("GET", f"/zones/{zone_id}/settings/security_level")
    c.call("GET", f"/zones/{zone_id}/dns_settings")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the management API's base URL, ending /client/v4")
    parser.add_argument("--token", required=True)
    parser.add_argument("--zone", required=True, help="the zone id")
    args = parser.parse_args()
    traffic(Client(args.base, args.token), args.zone)
    return 0


if __name__ == "__main__":
    sys.exit(main())
