"""A package index on loopback (real HTTP/1.1, port 0): the JSON simple API (PEP 691/700) for vllm
and any other project, the wheels with or without answering range requests, their METADATA beside
them (PEP 658), or failing requests; a proxy too (a request that names the whole URL). The tests
never reach the real one."""

from __future__ import annotations

import json
import re
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


class FakePyPI:
    def __init__(self, wheels: dict[str, Path], ranges: bool = True, fail: int | None = None,
                 corrupt: bool = False, projects: dict[str, dict[str, Path]] | None = None,
                 metadata: bool = True, fail_times: int | None = None, drop_idle: bool = False):
        """wheels: vllm's {version: wheel}; projects: other projects' ({name: {version: wheel}});
        `fail`: answer that status, to every request or to the first `fail_times`; `corrupt`: a byte
        of each range before a wheel's last MiB comes back flipped; `metadata`: serve each wheel's
        METADATA beside it (else 404, and the wheel itself is read); `drop_idle`: close each
        connection after its answer without saying so, as a server does to an idle one."""
        self.projects = {"vllm": wheels, **(projects or {})}
        self.ranges, self.fail, self.corrupt, self.metadata = ranges, fail, corrupt, metadata
        self.fail_times, self.drop_idle = fail_times, drop_idle
        self.requests: list[str] = []
        self.targets: list[str] = []               # the request lines' targets, as sent
        self.connections: set[int] = set()         # the clients' ports: one per connection
        self.sent = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.address = f"127.0.0.1:{self.server.server_port}"
        self.url = f"http://{self.address}/simple"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakePyPI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _json(self, project: str) -> bytes:
        wheels = sorted(self.projects[project].items())
        files = [{"filename": w.name, "url": f"../../files/{w.name}", "size": w.stat().st_size, "yanked": False,
                  "upload-time": f"2026-0{i + 1}-15T12:00:00Z", "hashes": {}} for i, (_, w) in enumerate(wheels)]
        versions = [v for v, _ in wheels]
        if project == "vllm":
            versions.append("0.4.0rc1")               # a pre-release without files: left out
        return json.dumps({"meta": {"api-version": "1.1"}, "name": project, "versions": versions,
                           "files": files}).encode()

    def _wheel(self, name: str) -> Path | None:
        return next((w for ws in self.projects.values() for w in ws.values() if w.name == name), None)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urlsplit(self.path).path        # a proxy's request names the whole URL
                fake.requests.append(f"{path} {self.headers.get('Range', '')}".strip())
                fake.targets.append(self.path)
                fake.connections.add(self.client_address[1])
                if fake.fail and (fake.fail_times is None or fake.fail_times > 0):
                    if fake.fail_times is not None:
                        fake.fail_times -= 1
                    self.send_error(fake.fail)
                    return
                m = re.match(r"^/simple/([^/]+)/$", path)
                if m:
                    if m.group(1) not in fake.projects:
                        return self.send_error(404)
                    return self._send(200, fake._json(m.group(1)), {"Content-Type": "application/vnd.pypi.simple.v1+json"})
                m = re.match(r"^/files/(.+?)(\.metadata)?$", path)
                wheel = fake._wheel(m.group(1)) if m else None
                if wheel is None or (m.group(2) and not fake.metadata):
                    return self.send_error(404)
                if m.group(2):
                    with zipfile.ZipFile(wheel) as z:
                        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
                        return self._send(200, z.read(meta))
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
                if fake.drop_idle:
                    self.close_connection = True

        return Handler
