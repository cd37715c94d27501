"""A loopback HTTP proxy that refuses every CONNECT tunnel with 403 (a corporate proxy's answer), or with
the status given second: `deny_proxy.py PORT [407]` asks for credentials instead."""
import socketserver, sys

class H(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        self.wfile.write(ANSWER)

ANSWERS = {403: b"HTTP/1.1 403 Forbidden\r\n",
           407: b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=corp\r\n"}
ANSWER = ANSWERS[int(sys.argv[2]) if len(sys.argv) > 2 else 403] + b"Content-Length: 0\r\nConnection: close\r\n\r\n"

if __name__ == "__main__":
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), H) as s:
        s.serve_forever()
