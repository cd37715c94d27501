"""A PyPI on loopback (real HTTP, port 0): its JSON API for vllm and the wheels, with or without
answering range requests, or failing every request. The tests never reach the real one."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FakePyPI:
    def __init__(self, wheels: dict[str, Path], ranges: bool = True, fail: int | None = None,
                 corrupt: bool = False):
        """`corrupt`: a byte of each range before a wheel's last MiB comes back flipped."""
        self.wheels, self.ranges, self.fail, self.corrupt = wheels, ranges, fail, corrupt
        self.requests: list[str] = []
        self.sent = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_port}/pypi"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakePyPI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _json(self) -> bytes:
        releases = {v: [{"filename": w.name, "url": f"../../files/{w.name}", "packagetype": "bdist_wheel",
                         "size": w.stat().st_size, "yanked": False,
                         "upload_time_iso_8601": f"2026-0{i + 1}-15T12:00:00Z"}]
                    for i, (v, w) in enumerate(sorted(self.wheels.items()))}
        releases["0.4.0rc1"] = []                     # a pre-release without files: left out
        return json.dumps({"info": {"name": "vllm"}, "releases": releases}).encode()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.requests.append(f"{self.path} {self.headers.get('Range', '')}".strip())
                if fake.fail:
                    self.send_error(fake.fail)
                    return
                if self.path == "/pypi/vllm/json":
                    return self._send(200, fake._json())
                m = re.match(r"^/files/(.+)$", self.path)
                wheel = next((w for w in fake.wheels.values() if m and w.name == m.group(1)), None)
                if wheel is None:
                    return self.send_error(404)
                body = wheel.read_bytes()
                rng = re.match(r"bytes=(\d+)-(\d+)$", self.headers.get("Range", ""))
                if rng and fake.ranges:
                    a, b = int(rng.group(1)), min(int(rng.group(2)), len(body) - 1)
                    part = bytearray(body[a: b + 1])
                    if fake.corrupt and a < len(body) - (1 << 20):
                        part[len(part) // 2] ^= 0xFF
                    return self._send(206, bytes(part), {"Content-Range": f"bytes {a}-{b}/{len(body)}"})
                return self._send(200, body)

            def _send(self, status, body, headers=None):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
                fake.sent += len(body)

        return Handler
