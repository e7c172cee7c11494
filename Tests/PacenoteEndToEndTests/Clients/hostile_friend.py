#!/usr/bin/env python3
"""A friend's server that names addresses on this machine for Pacenote's poller to fetch,
and the services it names. Two kinds of server, all on this machine:

  the friend, on FRIEND_HOST (127.0.0.2): feeds whose redirects, feed link and covers point
  at the targets below, and a cover and a feed of its own;
  the targets, standing in for the owner's loopback and LAN services: 127.0.0.1 and [::1],
  each answering /metrics, /feed.atom and /cover.png.

Every connection a target accepts is logged (before any request is read), so a target that
is never connected to is shown to be so. Writes {"friend": port, "target": port,
"target6": port} to PORT_FILE once all listen; appends {"server", "event", "path"} lines to LOG.

  /to-loopback.atom     302 to http://127.0.0.1:TARGET/metrics
  /to-localhost.atom    302 to http://localhost:TARGET/metrics (a name that resolves to loopback)
  /to-mapped.atom       302 to http://[::ffff:127.0.0.1]:TARGET/metrics
  /to-unspecified.atom  302 to http://0.0.0.0:TARGET/metrics (Linux connects it to loopback)
  /to-v6.atom           302 to http://[::1]:TARGET6/metrics
  /to-feed.atom         302 to http://127.0.0.1:TARGET/feed.atom
  /page.html            a page whose feed link is http://127.0.0.1:TARGET/feed.atom
  /covers.atom          a feed whose covers are on 127.0.0.1 and [::1]
  /to-self.atom         302 to the friend's own /own.atom, whose cover is the friend's too

Usage: hostile_friend.py LOG PORT_FILE FRIEND_HOST"""
import json
import signal
import socket
import struct
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_path, port_file, friend_host = sys.argv[1], sys.argv[2], sys.argv[3]
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
signal.signal(signal.SIGTERM, signal.SIG_DFL)
lock = threading.Lock()


def log(server, event, path=None):
    with lock, open(log_path, "a") as f:
        f.write(json.dumps({"server": server, "event": event, "path": path}) + "\n")


def png():
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x10\x80\xf0" * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def feed(entries):
    body = "".join(f"""
  <entry>
    <id>{e['id']}</id>
    <title>{e['title']}</title>
    <link rel="enclosure" type="image/png" href="{e['cover']}"/>
    <updated>2026-01-0{e['day']}T12:00:00Z</updated>
  </entry>""" for e in entries)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:test</id><title>t</title><updated>2026-01-03T12:00:00Z</updated>{body}
</feed>
""".encode()


class Logged(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, name, address, family=socket.AF_INET):
        self.name = name
        self.address_family = family
        super().__init__(address, Handler)

    def verify_request(self, request, client_address):
        log(self.name, "connect")
        return True


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body=b"", kind="text/plain", location=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        name = self.server.name
        log(name, "request", self.path)
        if name != "friend":
            if self.path == "/feed.atom":
                return self.send(200, feed([{"id": "urn:lan:1", "title": "On The LAN — Target", "cover": "/cover.png", "day": 2}]),
                                 "application/atom+xml")
            if self.path == "/cover.png":
                return self.send(200, png(), "image/png")
            return self.send(200, b"# HELP secret_metric what a stranger must not read\nsecret_metric 1\n")
        t, t6 = ports["target"], ports["target6"]
        friend = f"http://{friend_host}:{ports['friend']}"
        redirects = {
            "/to-loopback.atom": f"http://127.0.0.1:{t}/metrics",
            "/to-localhost.atom": f"http://localhost:{t}/metrics",
            "/to-mapped.atom": f"http://[::ffff:127.0.0.1]:{t}/metrics",
            "/to-unspecified.atom": f"http://0.0.0.0:{t}/metrics",
            "/to-v6.atom": f"http://[::1]:{t6}/metrics",
            "/to-feed.atom": f"http://127.0.0.1:{t}/feed.atom",
            "/to-self.atom": f"{friend}/own.atom",
        }
        if self.path in redirects:
            return self.send(302, location=redirects[self.path])
        if self.path == "/page.html":
            return self.send(200, f"""<!doctype html><html><head><title>Share</title>
<link rel="alternate" type="application/atom+xml" href="http://127.0.0.1:{t}/feed.atom"></head><body></body></html>""".encode(),
                             "text/html")
        if self.path == "/covers.atom":
            return self.send(200, feed([
                {"id": "urn:c:2", "title": "Loopback Cover — Friend", "cover": f"http://127.0.0.1:{t}/cover.png", "day": 2},
                {"id": "urn:c:1", "title": "V6 Cover — Friend", "cover": f"http://[::1]:{t6}/cover.png", "day": 1},
            ]), "application/atom+xml")
        if self.path == "/own.atom":
            return self.send(200, feed([{"id": "urn:o:1", "title": "Own Cover — Friend", "cover": f"{friend}/cover.png", "day": 3}]),
                             "application/atom+xml")
        if self.path == "/cover.png":
            return self.send(200, png(), "image/png")
        self.send(404)


servers = {
    "target": Logged("target", ("127.0.0.1", 0)),
    "target6": Logged("target6", ("::1", 0), socket.AF_INET6),
    "friend": Logged("friend", (friend_host, 0)),
}
ports = {name: server.server_address[1] for name, server in servers.items()}
for server in servers.values():
    threading.Thread(target=server.serve_forever, daemon=True).start()
with open(port_file + ".tmp", "w") as f:
    json.dump(ports, f)
import os
os.rename(port_file + ".tmp", port_file)
threading.Event().wait()
