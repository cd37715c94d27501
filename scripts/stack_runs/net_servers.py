"""Loopback stand-ins for the network under the Hub client, run inside a private network namespace
(net_runs.sh): `net_servers.py DIR`. DIR gets a CA (ca.pem) and a leaf certificate for the Hub's hosts.
  127.0.0.2:443  TLS with the CA's leaf: the handshake passes, then nothing is ever answered (a read timeout)
  127.0.0.3:443  TLS with a self-signed certificate no trust store holds (an SSL failure)
  127.0.0.4:443  TCP accepted, the TLS handshake never answered (a handshake timeout)
  127.0.0.1:3129 an HTTP proxy that accepts the connection and never answers the CONNECT
Nothing listens on 127.0.0.1:443 or :3128 (refused); 10.9.9.0/24 is routed into lo and dropped (a connect timeout).
"""
import os, socket, ssl, sys, threading, time

from tls_mirror import make_certs, openssl     # (this script's folder is first on sys.path)

HOSTS = ["huggingface.co", "hf.co", "cdn-lfs.hf.co", "cdn-lfs-us-1.hf.co", "cas-server.xethub.hf.co",
         "cas-bridge.xethub.hf.co", "transfer.xethub.hf.co", "hf-mirror.com"]


def certs(d):
    """tls_mirror's CA and leaf for the Hub's names (and 127.0.0.2), and a self-signed certificate beside them."""
    make_certs(d, "Loopback Test CA", "huggingface.co", ",".join("DNS:" + h for h in HOSTS) + ",IP:127.0.0.2")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=huggingface.co",
            "-keyout", os.path.join(d, "self.key"), "-out", os.path.join(d, "self.pem"))


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
