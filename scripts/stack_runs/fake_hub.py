"""A loopback stand-in for the Hugging Face Hub that answers every request for a repo with the Hub's own
error for the case the repo's namespace names (`fake_hub.py PORT`, then HF_ENDPOINT=http://127.0.0.1:PORT).
The status codes and X-Error-Code / X-Error-Message headers are those huggingface_hub's hf_raise_for_status
reads (utils/_http.py); the messages are the Hub's as quoted in users' pastes.
  gated/<name>        401 GatedRepo without a token, 403 GatedRepo with one (access not granted)
  finegrained/<name>  403, no X-Error-Code: a fine-grained token without the public-gated-repos permission
  missing/<name>      401 RepoNotFound (the Hub's answer for a repo it will not show: missing or private)
  badtoken/<name>     401 "Invalid credentials in Authorization header"
  norev/<name>        the repo exists (api), but 404 RevisionNotFound for any revision but main's files
  noentry/<name>      the repo exists, every file 404 EntryNotFound
  forbidden/<name>    a bare 403 without any Hub header (a WAF or proxy in front of the endpoint)
  ratelimit/<name>    429 with the Hub's RateLimit headers; ratelimitbare/<name>: 429 without them
  down500/<name>, down503/<name>, down502/<name>   a 5xx with a non-JSON body
  hang/<name>         accepts the request and never answers (a read timeout)
  xetrefused/<name>, xet503/<name>, xethang/<name>   a repo whose files are FAKE_HUB_MODEL's (default /tmp/tiny), its
                      *.safetensors stored on Xet: the file's HEAD carries X-Xet-Hash and a Link rel="xet-auth" to
                      api/models/<repo>/xet-read-token/<rev>, which answers X-Xet-Cas-Url / X-Xet-Access-Token /
                      X-Xet-Token-Expiration (huggingface_hub 2.5 constants.py, utils/_xet.py); the CAS it names is
                      a closed port (refused), this server answering 503, or this server never answering
As a plain-HTTP proxy (HTTP_PROXY=http://127.0.0.1:PORT, HF_ENDPOINT=http://huggingface.co) it answers the same, and
the client's messages name huggingface.co.
"""
import json, sys, time, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def rid():
    return "Root=1-%08x-%s;%s" % (int(time.time()), uuid.uuid4().hex[:24], uuid.uuid4())


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.command, self.path))

    def send(self, status, headers=None, body=None):
        if body is None:
            body = {}
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("X-Request-Id", rid())
        self.send_header("Content-Type", "application/json" if not isinstance(body, bytes) else "text/html")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def err(self, status, code, msg):
        h = {"X-Error-Message": msg}
        if code:
            h["X-Error-Code"] = code
        self.send(status, h, {"error": msg})

    def xet(self, mode, repo, parts):
        import hashlib, os
        d = os.environ.get("FAKE_HUB_MODEL", "/tmp/tiny")
        files = sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
        sha = "b" * 40
        base = "http://%s" % self.headers.get("Host", "127.0.0.1")
        if len(parts) >= 4 and parts[2] == "xet-read-token":
            cas = "http://127.0.0.1:9" if mode == "refused" else "%s/cas/%s" % (base, mode)
            return self.send(200, {"X-Xet-Cas-Url": cas, "X-Xet-Access-Token": "xet_" + uuid.uuid4().hex,
                                   "X-Xet-Token-Expiration": str(int(time.time()) + 3600)},
                             {"casUrl": cas, "accessToken": "x", "exp": int(time.time()) + 3600})
        if len(parts) >= 3 and parts[2] == "tree":
            return self.send(200, {}, [{"type": "file", "path": f, "size": os.path.getsize(os.path.join(d, f)),
                                        "oid": hashlib.sha1(f.encode()).hexdigest()} for f in files])
        if len(parts) >= 5 and parts[2] == "resolve":
            f = "/".join(parts[4:])
            if f not in files:
                return self.err(404, "EntryNotFound", "Entry not found")
            data = open(os.path.join(d, f), "rb").read()
            h = {"X-Repo-Commit": sha, "ETag": '"%s"' % hashlib.sha256(data).hexdigest()}
            if f.endswith(".safetensors"):
                h["X-Xet-Hash"] = hashlib.sha256(b"xet" + data).hexdigest()
                h["Link"] = '<%s/api/models/%s/xet-read-token/%s>; rel="xet-auth"' % (base, repo, sha)
                h["X-Linked-Size"] = str(len(data))
                h["X-Linked-Etag"] = h["ETag"]
            return self.send(200, h, data)
        return self.send(200, {}, {"id": repo, "modelId": repo, "sha": sha, "private": False, "gated": False,
                                   "siblings": [{"rfilename": f} for f in files]})

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.startswith("/cas/"):    # the Xet CAS of xet503/ and xethang/ repos
            if path.startswith("/cas/hang"):
                time.sleep(3600)
                return
            return self.send(503, {}, b"<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>")
        if "://" in path:       # asked as a plain-HTTP proxy (HF_ENDPOINT=http://huggingface.co, HTTP_PROXY=here)
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        parts = [p for p in path.split("/") if p]
        if parts[:2] == ["api", "models"] or parts[:2] == ["api", "datasets"]:
            parts = parts[2:]
        elif parts[:1] == ["api"]:
            return self.err(404, None, "Sorry, we can't find the page you are looking for.")
        if len(parts) < 2:
            return self.err(404, None, "Sorry, we can't find the page you are looking for.")
        org, name = parts[0], parts[1]
        repo = "%s/%s" % (org, name)
        authed = bool(self.headers.get("Authorization"))
        if org.startswith("xet"):
            return self.xet(org[3:], repo, parts)
        if org == "hang":
            time.sleep(3600)
            return
        if org == "gated":
            if authed:
                return self.err(403, "GatedRepo", "Access to model %s is restricted and you are not in the authorized "
                                "list. Visit https://huggingface.co/%s to ask for access." % (repo, repo))
            return self.err(401, "GatedRepo", "Access to model %s is restricted. You must have access to it and be "
                            "authenticated to access it. Please log in." % repo)
        if org == "finegrained":
            return self.err(403, None, "Please enable access to public gated repositories in your fine-grained "
                            "token settings to view this repository.")
        if org == "missing":
            return self.err(401, "RepoNotFound", "Repository not found")
        if org == "badtoken":
            return self.err(401, None, "Invalid credentials in Authorization header")
        if org == "forbidden":
            return self.send(403, {}, b"<html><body><h1>403 Forbidden</h1></body></html>")
        if org == "ratelimit":
            return self.send(429, {"RateLimit": '"api";r=0;t=212', "RateLimit-Policy": '"fixed window";"api";q=500;w=300'},
                             {"error": "We had to rate limit your IP (10.0.0.1). To continue using our service, create a HF account or login to your existing account, and make sure you pass a HF_TOKEN if you're using the API."})
        if org == "ratelimitbare":
            return self.send(429, {}, b"<html><body>Too Many Requests</body></html>")
        if org.startswith("down5"):
            code = int(org[4:])
            return self.send(code, {}, b"<html><body><h1>%d</h1></body></html>" % code)
        if org == "norev":
            rev = parts[3] if len(parts) > 3 else "main"
            if rev != "main":
                return self.err(404, "RevisionNotFound", "Invalid rev id: %s" % rev)
        if org in ("noentry", "norev"):
            if len(parts) >= 4 and parts[2] == "resolve":
                return self.err(404, "EntryNotFound", "Entry not found")
            if len(parts) >= 3 and parts[2] == "tree":
                return self.send(200, {}, [])
            return self.send(200, {}, {"id": repo, "modelId": repo, "sha": "a" * 40, "siblings": [],
                                       "private": False, "gated": False})
        return self.err(404, "RepoNotFound", "Repository not found")

    do_HEAD = do_GET

    def do_POST(self):
        # the body is read first: left unread on a kept-alive connection, it is parsed as the next request (hf_xet posts
        # its telemetry to HF_ENDPOINT/v1/telemetry, and http.server's 400 for that body then answered its next request)
        size = int(self.headers.get("Content-Length") or 0)
        if size:
            self.rfile.read(size)
        if self.path.split("?")[0].rstrip("/").endswith("/v1/telemetry"):
            return self.send(200, {}, {})
        return self.do_GET()


if __name__ == "__main__":
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
