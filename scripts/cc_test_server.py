#!/usr/bin/env python3
"""A static HTTP server on 127.0.0.1 with byte ranges, for testing `make cc-slice` offline.
It cuts the first response for each path containing CUT off after CUT_BYTES bytes, as a flaky
network would, and logs every request (with its Range header) to LOG.

usage: cc_test_server.py ROOT PORT_FILE LOG [CUT CUT_BYTES]"""
import os
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

root, port_file, log = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
cut = sys.argv[4] if len(sys.argv) > 4 else None
cut_bytes = int(sys.argv[5]) if len(sys.argv) > 5 else 0
already_cut = set()


class Handler(SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=str(root), **kw)

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = root / self.path.lstrip("/")
        rng = self.headers.get("Range")
        with log.open("a") as f:
            f.write(f"GET {self.path} range={rng}\n")
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start = 0
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0] or 0)
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if cut and cut in self.path and self.path not in already_cut and len(body) > cut_bytes:
            already_cut.add(self.path)
            self.wfile.write(body[:cut_bytes])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port_file.write_text(str(server.server_address[1]))
server.serve_forever()
