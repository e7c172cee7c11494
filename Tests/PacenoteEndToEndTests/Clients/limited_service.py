"""A ListenBrainz-compatible service that limits requests, for ForwardingTests: the first
submit-listens gets 429 with Retry-After: 2, the rest 200. Every request is written as a JSON
line to REQUESTS (time, status, User-Agent, Authorization, listen_type, how many listens).

Usage: limited_service.py PORT REQUESTS
"""
import json
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, LOG = int(sys.argv[1]), sys.argv[2]
# The test process blocks SIGTERM, and children inherit that; the test stops us with it.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
signal.signal(signal.SIGTERM, signal.SIG_DFL)
seen = {"count": 0}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            payload = json.loads(body)
        except ValueError:
            payload = {}
        seen["count"] += 1
        status = 429 if seen["count"] == 1 else 200
        with open(LOG, "a") as log:
            log.write(json.dumps({
                "at": time.time(), "path": self.path, "status": status,
                "user_agent": self.headers.get("User-Agent"), "authorization": self.headers.get("Authorization"),
                "listen_type": payload.get("listen_type"), "listens": len(payload.get("payload") or []),
            }) + "\n")
        answer = json.dumps({"code": 429, "error": "slow down"} if status == 429 else {"status": "ok"}).encode()
        self.send_response(status)
        if status == 429:
            self.send_header("Retry-After", "2")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
