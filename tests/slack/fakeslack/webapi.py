"""A small fake of the Slack Web API, served over real HTTP on 127.0.0.1, port 0.

It answers the methods the bot calls, serves Sign in with Slack (openid.py), keeps a log of
every request it gets (tests wait on that log with deadlines), serves private files only to a Bearer token, runs the three-step file
upload, enforces trigger_id and response_url lifetimes, checks Block Kit limits the way Slack
does, and answers 429 (with Retry-After) or 500 when a test asks it to.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qsl, urlsplit

from .openid import FakeOpenID

BOT_TOKEN = "xoxb-fake-bot-token"
APP_TOKEN = "xapp-fake-app-token"
BOT_USER_ID = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM_ID = "T0FAKE01"

# Slack limits (slack_sdk.models enforces the same ones client-side; the fake checks again so a
# renderer that bypasses the models is still caught).
MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_VALUE = 2000
MAX_TOTAL_BLOCK_TEXT = 12000  # msg_blocks_too_long is observed somewhere around 11-13k
TRIGGER_TTL_S = 3.0
RESPONSE_URL_USES = 5
RESPONSE_URL_TTL_S = 30 * 60

LOGIN_PAGE = b"""<!DOCTYPE html>
<html lang="en-US"><head><title>Slack</title></head>
<body><p>Sign in to your workspace to continue.</p></body></html>
"""


@dataclass
class Call:
    """One request the fake received."""

    method: str  # Web API method ("chat.postMessage") or "GET /files-pri/..." style path
    path: str
    headers: dict[str, str]
    params: dict[str, Any]
    body: bytes
    t: float
    status: int = 200
    answer: Any = None

    @property
    def token(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None


@dataclass
class FakeFile:
    id: str
    name: str
    content: bytes
    filetype: str = "text"
    mode: str = "hosted"
    mimetype: str = "text/plain"
    # "bytes": serve the content; "login": answer 200 with an HTML login page whatever the
    # token; "redirect": 302 to another host (a download must not follow it with the token).
    serve: str = "bytes"


@dataclass
class Injection:
    method: str
    status: int
    times: int
    retry_after: int | None = None
    error: str | None = None          # with status 200: Slack's `{"ok": false, "error": ...}`


@dataclass
class _Trigger:
    issued: float
    used: bool = False


@dataclass
class _ResponseUrl:
    issued: float
    uses: int = 0


@dataclass
class FakeSlack:
    """The fake Web API. Use as a context manager or call start()/stop()."""

    bot_token: str = BOT_TOKEN
    app_token: str = APP_TOKEN
    clock: Callable[[], float] = time.monotonic
    trigger_ttl_s: float = TRIGGER_TTL_S
    socket_url: str | None = None  # what apps.connections.open hands out

    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[str, str], dict] = field(default_factory=dict)
    files: dict[str, FakeFile] = field(default_factory=dict)
    uploads: dict[str, dict] = field(default_factory=dict)
    views: list[dict] = field(default_factory=list)
    hooks: dict[str, list[dict]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.openid = FakeOpenID(team_id=TEAM_ID)
        self._lock = threading.Condition()
        self._ids = itertools.count(1)
        self._ts = itertools.count(1)
        self._injections: list[Injection] = []
        self._triggers: dict[str, _Trigger] = {}
        self._response_urls: dict[str, _ResponseUrl] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ------------------------------------------------------------------------

    def start(self) -> "FakeSlack":
        fake = self

        class Handler(_Handler):
            pass

        Handler.fake = fake
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeSlack":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    # ---- things tests hand to the bot -----------------------------------------------------

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):07d}"

    def new_ts(self) -> str:
        # Real ts values are "seconds.micro"; only uniqueness and order matter here.
        return f"{1_700_000_000 + next(self._ts)}.000100"

    def add_file(self, name: str, content: bytes | str, **kw) -> dict:
        """Store a file and return the file object a file_share event carries."""
        data = content.encode() if isinstance(content, str) else content
        f = FakeFile(id=self.new_id("F"), name=name, content=data, **kw)
        self.files[f.id] = f
        return self.file_object(f)

    def file_object(self, f: FakeFile) -> dict:
        private = f"{self.url}/files-pri/{TEAM_ID}-{f.id}/{f.name}"
        return {
            "id": f.id,
            "name": f.name,
            "title": f.name,
            "mimetype": f.mimetype,
            "filetype": f.filetype,
            "mode": f.mode,
            "size": len(f.content),
            "url_private": private,
            "url_private_download": f"{self.url}/files-pri/{TEAM_ID}-{f.id}/download/{f.name}",
        }

    def new_trigger(self) -> str:
        trigger = f"{next(self._ids)}.{TEAM_ID}.fake{next(self._ids)}"
        with self._lock:
            self._triggers[trigger] = _Trigger(issued=self.clock())
        return trigger

    def new_response_url(self) -> str:
        hook = self.new_id("H")
        with self._lock:
            self._response_urls[hook] = _ResponseUrl(issued=self.clock())
            self.hooks[hook] = []
        return f"{self.url}/hooks/{hook}"

    def inject(self, method: str, status: int, *, times: int = 1, retry_after: int | None = None,
               error: str | None = None) -> None:
        """Answer the next `times` calls of `method` with HTTP `status` (and, for 200, `{"ok":
        false, "error": error}`: Slack refusing the call in a well-formed answer). Nothing is
        posted by a refused call."""
        with self._lock:
            self._injections.append(Injection(method, status, times, retry_after, error))

    def heal(self, method: str) -> None:
        """Stop refusing `method`: the outage of Slack's side is over."""
        with self._lock:
            for inj in self._injections:
                if inj.method == method:
                    inj.times = 0

    # ---- reading the log ------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, predicate: Callable[[list[Call]], Any], timeout: float = 10.0) -> Any:
        """Wait until predicate(calls) is truthy; return its value. Fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                value = predicate(list(self.calls))
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    methods = [c.method for c in self.calls]
                    raise AssertionError(f"fake Slack: condition not met within {timeout}s; calls so far: {methods}")
                self._lock.wait(left)

    def wait_calls(self, method: str, n: int = 1, timeout: float = 10.0) -> list[Call]:
        return self.wait_for(lambda calls: (m := [c for c in calls if c.method == method and c.status == 200]) and len(m) >= n and m, timeout)

    def ok_calls(self, method: str) -> list[Call]:
        return [c for c in self.calls_to(method) if c.status == 200 and isinstance(c.answer, dict) and c.answer.get("ok")]

    def _record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)
            self._lock.notify_all()

    def _take_injection(self, method: str) -> Injection | None:
        with self._lock:
            for inj in self._injections:
                if inj.method == method and inj.times > 0:
                    inj.times -= 1
                    return inj
        return None

    # ---- Web API methods ------------------------------------------------------------------

    def api(self, method: str, params: dict, token: str | None) -> dict:
        if method == "apps.connections.open":
            if token != self.app_token:
                return {"ok": False, "error": "invalid_auth"}
            if not self.socket_url:
                return {"ok": False, "error": "socket_mode_not_configured_in_fake"}
            return {"ok": True, "url": self.socket_url}
        if token != self.bot_token:
            return {"ok": False, "error": "not_authed" if token is None else "invalid_auth"}
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        return handler(params)

    def _api_auth_test(self, params: dict) -> dict:
        return {"ok": True, "url": "https://fake.slack.test/", "team": "fake", "user": "vllm-doctor",
                "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}

    def _api_chat_postMessage(self, params: dict) -> dict:
        channel = params.get("channel")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        problem = check_message(params)
        if problem:
            return {"ok": False, "error": problem}
        ts = self.new_ts()
        message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "ts": ts, "text": params.get("text", ""),
                   "blocks": _json_param(params.get("blocks")) or []}
        if params.get("thread_ts"):
            message["thread_ts"] = params["thread_ts"]
        with self._lock:
            self.messages[(channel, ts)] = message
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _api_chat_postEphemeral(self, params: dict) -> dict:
        problem = check_message(params)
        if problem:
            return {"ok": False, "error": problem}
        return {"ok": True, "message_ts": self.new_ts()}

    def _api_chat_update(self, params: dict) -> dict:
        key = (params.get("channel"), params.get("ts"))
        problem = check_message(params)
        if problem:
            return {"ok": False, "error": problem}
        with self._lock:
            message = self.messages.get(key)
            if message is None:
                return {"ok": False, "error": "message_not_found"}
            message["text"] = params.get("text", message["text"])
            if "blocks" in params:
                message["blocks"] = _json_param(params["blocks"]) or []
        return {"ok": True, "channel": key[0], "ts": key[1], "text": message["text"]}

    def _api_views_open(self, params: dict) -> dict:
        trigger_id = params.get("trigger_id")
        with self._lock:
            trigger = self._triggers.get(trigger_id)
            if trigger is None:
                return {"ok": False, "error": "invalid_trigger_id"}
            if trigger.used:
                return {"ok": False, "error": "exchanged_trigger_id"}
            if self.clock() - trigger.issued > self.trigger_ttl_s:
                return {"ok": False, "error": "expired_trigger_id"}
            trigger.used = True
            view = dict(_json_param(params.get("view")) or {})
            view["id"] = self.new_id("V")
            self.views.append(view)
        return {"ok": True, "view": view}

    def _api_files_info(self, params: dict) -> dict:
        f = self.files.get(params.get("file", ""))
        if f is None:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": self.file_object(f)}

    def _api_files_getUploadURLExternal(self, params: dict) -> dict:
        if not params.get("filename") or not str(params.get("length", "")).isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = self.new_id("F")
        with self._lock:
            self.uploads[file_id] = {"filename": params["filename"], "length": int(params["length"]), "content": None}
        return {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}

    def _api_files_completeUploadExternal(self, params: dict) -> dict:
        files = _json_param(params.get("files")) or []
        done = []
        with self._lock:
            for entry in files:
                upload = self.uploads.get(entry.get("id"))
                if upload is None or upload["content"] is None:
                    return {"ok": False, "error": "file_not_found"}
                upload.update(title=entry.get("title"), channel=params.get("channel_id"),
                              thread_ts=params.get("thread_ts"), initial_comment=params.get("initial_comment"),
                              completed=True)
                done.append({"id": entry["id"], "title": entry.get("title"), "name": upload["filename"]})
        return {"ok": True, "files": done}

    # ---- non-API endpoints ----------------------------------------------------------------

    def upload(self, file_id: str, data: bytes) -> tuple[int, bytes]:
        with self._lock:
            upload = self.uploads.get(file_id)
            if upload is None:
                return 404, b"not found"
            upload["content"] = data
        return 200, f"OK - {len(data)}".encode()

    def hook(self, hook_id: str, payload: dict) -> tuple[int, bytes]:
        with self._lock:
            state = self._response_urls.get(hook_id)
            if state is None:
                return 404, b"no_such_url"
            if state.uses >= RESPONSE_URL_USES or self.clock() - state.issued > RESPONSE_URL_TTL_S:
                return 404, b"expired_url"
            problem = check_message(payload)
            if problem:
                return 400, problem.encode()
            state.uses += 1
            self.hooks[hook_id].append(payload)
        return 200, b"ok"

    def hook_payloads(self) -> list[dict]:
        with self._lock:
            return [p for payloads in self.hooks.values() for p in payloads]

    def download(self, file_key: str, token: str | None) -> tuple[int, dict[str, str], bytes]:
        file_id = file_key.split("-", 1)[-1]
        f = self.files.get(file_id)
        if f is None:
            return 404, {"Content-Type": "text/plain"}, b"not found"
        if f.serve == "redirect":
            return 302, {"Location": "http://127.0.0.2:9/elsewhere", "Content-Type": "text/html"}, b""
        if token != self.bot_token or f.serve == "login":
            # What Slack does: a 200 with a sign-in page rather than an error.
            return 200, {"Content-Type": "text/html; charset=utf-8"}, LOGIN_PAGE
        return 200, {"Content-Type": f.mimetype}, f.content


def _json_param(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def block_text_lengths(block: dict) -> list[tuple[str, int]]:
    """(kind, length) of every text a block carries, for the limit checks."""
    out = []
    kind = block.get("type")
    text = block.get("text")
    if isinstance(text, dict):
        out.append((kind, len(text.get("text", ""))))
    elif isinstance(text, str):
        out.append((kind, len(text)))
    for f in block.get("fields") or []:
        out.append(("field", len(f.get("text", ""))))
    for el in block.get("elements") or []:
        if isinstance(el.get("text"), str):
            out.append(("context", len(el["text"])))
        elif isinstance(el.get("text"), dict):
            out.append((el.get("type"), len(el["text"].get("text", ""))))
        if el.get("type") == "button" and len(el.get("value", "")) > MAX_BUTTON_VALUE:
            out.append(("button_value_too_long", len(el["value"])))
    return out


def check_message(params: dict) -> str | None:
    """The error Slack would give for these blocks, or None."""
    blocks = _json_param(params.get("blocks"))
    if blocks is None:
        return None
    if not isinstance(blocks, list) or len(blocks) > MAX_BLOCKS:
        return "invalid_blocks"
    total = 0
    for block in blocks:
        for kind, n in block_text_lengths(block):
            if kind == "button_value_too_long":
                return "invalid_blocks"
            if kind == "section" and n > MAX_SECTION_TEXT:
                return "invalid_blocks"
            if kind == "header" and n > MAX_HEADER_TEXT:
                return "invalid_blocks"
            total += n
    if total > MAX_TOTAL_BLOCK_TEXT:
        return "msg_blocks_too_long"
    return None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSlack
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _params(self, body: bytes) -> dict[str, Any]:
        params: dict[str, Any] = dict(parse_qsl(urlsplit(self.path).query))
        ctype = self.headers.get("Content-Type", "")
        if body and "application/json" in ctype:
            params.update(json.loads(body))
        elif body and "application/x-www-form-urlencoded" in ctype:
            params.update(parse_qsl(body.decode()))
        return params

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        headers = headers or {}
        headers.setdefault("Content-Type", "application/json; charset=utf-8")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        fake = self.fake
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        call = Call(method="GET " + path.split("/")[1], path=path, headers=headers, params={}, body=b"", t=time.monotonic())
        if path.startswith("/files-pri/"):
            status, out_headers, content = fake.download(path.split("/")[2], call.token)
            call.status = status
            fake._record(call)
            self._send(status, content, out_headers)
            return
        if path == "/openid/connect/authorize":
            status, out_headers, content = fake.openid.authorize(urlsplit(self.path).query)
            call.method, call.status = "openid.authorize", status
            fake._record(call)
            self._send(status, content, out_headers)
            return
        if path == "/api/openid.connect.userInfo":
            call.method, call.answer = "openid.connect.userInfo", fake.openid.userinfo(call.token)
            fake._record(call)
            self._send(200, json.dumps(call.answer).encode())
            return
        call.status = 404
        fake._record(call)
        self._send(404, b"not found", {"Content-Type": "text/plain"})

    def do_POST(self) -> None:
        fake = self.fake
        body = self._read_body()
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        now = time.monotonic()
        if path.startswith("/upload/"):
            status, out = fake.upload(path.split("/")[2], body)
            fake._record(Call("upload", path, headers, {}, body, now, status))
            self._send(status, out, {"Content-Type": "text/plain"})
            return
        if path.startswith("/hooks/"):
            payload = json.loads(body or b"{}")
            status, out = fake.hook(path.split("/")[2], payload)
            fake._record(Call("response_url", path, headers, payload, body, now, status, out.decode()))
            self._send(status, out, {"Content-Type": "text/plain"})
            return
        if not path.startswith("/api/"):
            fake._record(Call("POST " + path, path, headers, {}, body, now, 404))
            self._send(404, b"not found", {"Content-Type": "text/plain"})
            return
        method = path[len("/api/") :]
        params = self._params(body)
        call = Call(method, path, headers, params, body, now)
        injection = fake._take_injection(method)
        if injection is not None:
            call.status = injection.status
            extra = {"Retry-After": str(injection.retry_after)} if injection.retry_after is not None else {}
            fake._record(call)
            error = injection.error or ("ratelimited" if injection.status == 429 else "fatal_error")
            call.answer = {"ok": False, "error": error}
            self._send(injection.status, json.dumps(call.answer).encode(), extra)
            return
        if method == "openid.connect.token":
            answer = fake.openid.token(params, headers)
        elif method == "openid.connect.userInfo":
            answer = fake.openid.userinfo(call.token)
        else:
            answer = fake.api(method, params, call.token)
        call.answer = answer
        fake._record(call)
        self._send(200, json.dumps(answer).encode())
