"""A loopback "Hub mirror" over HTTPS whose certificate no default trust store holds: what a
TLS-intercepting corporate proxy or a mirror with its own CA looks like to huggingface_hub.

usage: tls_mirror.py DIR [PORT] [--leaf-only]

It makes, with the openssl CLI, a CA (DIR/ca.pem) and a certificate for 127.0.0.1 signed by it, and
answers 404 to every request (enough: the point is the handshake). By default it sends the CA along
with its certificate, as intercepting proxies do, so a client reports "self-signed certificate in
certificate chain"; `--leaf-only` sends the leaf alone, so a client reports "unable to get local
issuer certificate". With DIR/ca.pem in SSL_CERT_FILE the handshake passes and the client sees the 404.
It prints the port it listens on (PORT 0 or left out: a free one) and serves until killed.
"""
import http.server, os, ssl, subprocess, sys


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_certs(d, ca="Example Corp Inspection CA", cn="127.0.0.1", alt="IP:127.0.0.1"):
    """A CA (DIR/ca.pem) and a leaf it signed for `cn` (DIR/leaf.pem, .key) naming `alt` as its subjectAltName."""
    os.makedirs(d, exist_ok=True)
    p = lambda n: os.path.join(d, n)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", f"/CN={ca}",
            "-keyout", p("ca.key"), "-out", p("ca.pem"))
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", p("leaf.key"), "-out", p("leaf.csr"))
    with open(p("leaf.ext"), "w") as f:
        # without a subjectAltName the client fails on the hostname, not on the CA
        f.write(f"subjectAltName={alt}\n")
    openssl("x509", "-req", "-in", p("leaf.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
            "-days", "30", "-extfile", p("leaf.ext"), "-out", p("leaf.pem"))
    with open(p("chain.pem"), "w") as f:
        f.write(open(p("leaf.pem")).read() + open(p("ca.pem")).read())


class NotFound(http.server.BaseHTTPRequestHandler):
    def _answer(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = _answer

    def log_message(self, fmt, *args):
        sys.stderr.write("tls_mirror: " + fmt % args + "\n")


if __name__ == "__main__":
    d = sys.argv[1]
    rest = [a for a in sys.argv[2:] if not a.startswith("--")]
    port = int(rest[0]) if rest else 0
    make_certs(d)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(d, "leaf.pem" if "--leaf-only" in sys.argv else "chain.pem"), os.path.join(d, "leaf.key"))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), NotFound)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()
