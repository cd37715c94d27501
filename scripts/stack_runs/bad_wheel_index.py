"""A loopback PEP 503 index whose one vllm wheel is broken: `bad_wheel_index.py PORT MODE` with MODE
  truncated  the first half of a real zip (a wheel built here with vllm's name), as a download cut short by a proxy leaves it
  html       an HTML page (a captive portal's or proxy's answer) served under the wheel's name
  stall      the page of /simple/vllm/ begins, then nothing more is sent (a read timeout mid-answer)
Every other project is 404 (uv and pip then say it is not found)."""
import http.server, io, sys, time, zipfile

NAME = "vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl"


def wheel():
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("vllm/__init__.py", "x = 1\n" * 4000)
        z.writestr("vllm-0.9.2.dist-info/METADATA", "Metadata-Version: 2.1\nName: vllm\nVersion: 0.9.2\n")
        z.writestr("vllm-0.9.2.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: x\nRoot-Is-Purelib: false\nTag: cp38-abi3-manylinux1_x86_64\n")
        z.writestr("vllm-0.9.2.dist-info/RECORD", "")
    return b.getvalue()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def out(self, status, body, ctype="text/html"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        mode = sys.argv[2]
        p = self.path.split("?")[0].rstrip("/")
        if p == "/simple/vllm":
            page = ('<!DOCTYPE html><html><body><a href="/files/%s">%s</a></body></html>' % (NAME, NAME)).encode()
            if mode == "stall":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page[:20]); self.wfile.flush()
                time.sleep(3600)
                return
            return self.out(200, page)
        if p == "/files/" + NAME:
            if mode == "html":
                return self.out(200, b"<html><body>Access denied by policy</body></html>", "application/octet-stream")
            w = wheel()
            return self.out(200, w[: len(w) // 2], "application/octet-stream")
        return self.out(404, b"not found")

    do_HEAD = do_GET

    def log_message(self, fmt, *a):
        sys.stderr.write("%s %s\n" % (self.command, self.path))


if __name__ == "__main__":
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
