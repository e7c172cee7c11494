#!/usr/bin/env python3
"""Feeds a Pacenote may be asked to follow that are not another Pacenote: hostile, huge,
broken, HTML, redirected, busy. Serves them on loopback, writes its port to PORT_FILE once
it listens, and appends every request (path and headers) as a JSON line to LOG.

  /hostile.atom   script and markup in the titles, a javascript: link, an SVG cover; an
                  ETag and Last-Modified, and 304 for them
  /huge.atom      2 MiB (past the poller's 1 MiB)
  /broken.atom    not well formed (an entry never closed)
  /page.html      an HTML page naming no feed
  /moved.atom     301 to /good.atom
  /good.atom      a plain feed whose cover is a PNG
  /busy.atom      503 with Retry-After: 3600
  /cover.svg, /cover.png

Usage: friend_feeds.py LOG PORT_FILE"""
import json
import os
import signal
import struct
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_path, port_file = sys.argv[1], sys.argv[2]
# The test process starts this with most signals blocked (its threads' mask is inherited):
# SIGTERM must end it.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
signal.signal(signal.SIGTERM, signal.SIG_DFL)


def png():
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\xd2\x45\x2f" * 8 for _ in range(8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def feed(entries):
    body = "".join(f"""
  <entry>
    <id>{e['id']}</id>
    <title>{e['title']}</title>
    <link rel="alternate" href="{e['link']}"/>
    <link rel="enclosure" type="{e['type']}" href="{e['cover']}"/>
    <published>2026-01-01T00:00:00Z</published>
    <updated>2026-01-01T12:00:00Z</updated>
  </entry>""" for e in entries)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:test</id>
  <title>Test &amp; feed</title>
  <updated>2026-01-01T12:00:00Z</updated>{body}
</feed>
""".encode()


HOSTILE = feed([{"id": "urn:hostile:1", "title": "&lt;script&gt;alert('x')&lt;/script&gt; — <![CDATA[<img src=x onerror=alert(1)>]]>",
                 "link": "javascript:alert(1)", "cover": "/cover.svg", "type": "image/svg+xml"}])
GOOD = feed([{"id": "urn:good:1", "title": "Good — Feed", "link": "/good-share", "cover": "/cover.png", "type": "image/png"}])
HUGE = b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><!--' + b"x" * (2 << 20) + b"--></feed>"
BROKEN = b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Cut</title></feed>'
PAGE = b"<!doctype html><html><head><title>Not a feed</title></head><body><p>Hello</p></body></html>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
ETAG, MODIFIED = '"hostile-1"', "Thu, 01 Jan 2026 12:00:00 GMT"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body=b"", kind="application/atom+xml", headers=()):
        self.send_response(status)
        if status != 304:
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def do_GET(self):
        with open(log_path, "a") as log:
            log.write(json.dumps({"path": self.path, "headers": dict(self.headers.items())}) + "\n")
        path = self.path
        if path == "/hostile.atom":
            if self.headers.get("If-None-Match") == ETAG or self.headers.get("If-Modified-Since") == MODIFIED:
                return self.send(304, headers=[("ETag", ETAG), ("Last-Modified", MODIFIED)])
            return self.send(200, HOSTILE, headers=[("ETag", ETAG), ("Last-Modified", MODIFIED)])
        if path == "/huge.atom":
            return self.send(200, HUGE)
        if path == "/broken.atom":
            return self.send(200, BROKEN)
        if path == "/page.html":
            return self.send(200, PAGE, kind="text/html")
        if path == "/moved.atom":
            return self.send(301, b"", headers=[("Location", "/good.atom")])
        if path == "/good.atom":
            return self.send(200, GOOD)
        if path == "/busy.atom":
            return self.send(503, b"busy", kind="text/plain", headers=[("Retry-After", "3600")])
        if path == "/cover.svg":
            return self.send(200, SVG, kind="image/png")  # lies about its type: told by its bytes
        if path == "/cover.png":
            return self.send(200, png(), kind="image/png")
        return self.send(404, b"no", kind="text/plain")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".partial", "w") as out:
    out.write(str(server.server_address[1]))
os.rename(port_file + ".partial", port_file)
server.serve_forever()
