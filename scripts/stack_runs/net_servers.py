"""Loopback stand-ins for the network under the Hub client, run inside a private network namespace
(net_runs.sh): `net_servers.py DIR`. DIR gets a CA (ca.pem) and a leaf certificate for the Hub's hosts.
  127.0.0.2:443  TLS with the CA's leaf: the handshake passes, then nothing is ever answered (a read timeout)
  127.0.0.3:443  TLS with a self-signed certificate no trust store holds (an SSL failure)
  127.0.0.4:443  TCP accepted, the TLS handshake never answered (a handshake timeout)
  127.0.0.1:3129 an HTTP proxy that accepts the connection and never answers the CONNECT
Nothing listens on 127.0.0.1:443 or :3128 (refused); 10.9.9.0/24 is routed into lo and dropped (a connect timeout).
"""
import os, socket, ssl, subprocess, sys, threading, time

HOSTS = ["huggingface.co", "hf.co", "cdn-lfs.hf.co", "cdn-lfs-us-1.hf.co", "cas-server.xethub.hf.co",
         "cas-bridge.xethub.hf.co", "transfer.xethub.hf.co", "hf-mirror.com"]


def openssl(*a):
    subprocess.run(["openssl", *a], check=True, capture_output=True)


def certs(d):
    os.makedirs(d, exist_ok=True)
    p = lambda n: os.path.join(d, n)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=Loopback Test CA",
            "-keyout", p("ca.key"), "-out", p("ca.pem"))
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=huggingface.co", "-keyout", p("leaf.key"), "-out", p("leaf.csr"))
    with open(p("leaf.ext"), "w") as f:
        f.write("subjectAltName=" + ",".join("DNS:" + h for h in HOSTS) + ",IP:127.0.0.2\n")
    openssl("x509", "-req", "-in", p("leaf.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
            "-days", "30", "-extfile", p("leaf.ext"), "-out", p("leaf.pem"))
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=huggingface.co",
            "-keyout", p("self.key"), "-out", p("self.pem"))


def serve(addr, handle):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(addr); s.listen(64)
    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=handle, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


def tls(ctx, then):
    def h(c):
        try:
            t = ctx.wrap_socket(c, server_side=True)
        except Exception:
            return c.close()
        then(t)
    return h


def hold(c):
    time.sleep(3600)


def answer404(t):
    try:
        t.recv(65536)
        t.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    finally:
        t.close()


if __name__ == "__main__":
    d = sys.argv[1]
    certs(d)
    good = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); good.load_cert_chain(os.path.join(d, "leaf.pem"), os.path.join(d, "leaf.key"))
    bad = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); bad.load_cert_chain(os.path.join(d, "self.pem"), os.path.join(d, "self.key"))
    serve(("127.0.0.2", 443), tls(good, hold))
    serve(("127.0.0.3", 443), tls(bad, answer404))
    serve(("127.0.0.4", 443), hold)
    serve(("127.0.0.1", 3129), hold)
    print("ready", flush=True)
    time.sleep(7200)
