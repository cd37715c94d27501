"""huggingface_hub's HTTP errors, read by their exception class: what the Hub answered and why.

`hf_raise_for_status` turns every failed request into one of a few classes (RepositoryNotFoundError,
GatedRepoError, RevisionNotFoundError, EntryNotFoundError / RemoteEntryNotFoundError,
DisabledRepoError, BadRequestError, or the plain HfHubHTTPError), and the class is the one part of
the message no release rewords: the text around it moved from requests' wording (0.x, "404 Client
Error: Not Found for url: ...") to httpx's (1.x, "Client error '404 Not Found' for url '...'"), and
the class's own text is printed after a blank line ("404 Client Error.\n\nEntry Not Found for url:
..."), which a paste's reader takes for a new message. So the class is read from the exception line,
the rest from the lines printed under it: the HTTP status (its meaning from the standard library's
table), the URL, and from the URL the repo, the revision and the file.

Which classes these are comes from the stack index (the classes huggingface_hub defines, with their
bases): any class that derives from HfHubHTTPError or EntryNotFoundError in some release. transformers
rewords some of them into an OSError of its own ("v2 is not a valid git identifier (branch name, tag name
or commit id) ..."); the index's raise site of that message records the handler it is raised in
(`except RevisionNotFoundError`), which names the class the Hub answered with.
"""

from __future__ import annotations

from bot.base import regex_cache
from bot.diagnose.reading.tracebacks import strip_prefixes

# Each class's hand-written cause is a `{?hub_<key>}` paragraph of rules/stack-hub-http.yaml; a class
# that derives from one of these (a later release's subclass) gets its base's paragraph.
CLASS_KEYS = {
    "GatedRepoError": "gated",
    "RepositoryNotFoundError": "repo_not_found",
    "RevisionNotFoundError": "no_revision",
    "RemoteEntryNotFoundError": "entry",
    "EntryNotFoundError": "entry",
    "DisabledRepoError": "disabled",
    "BadRequestError": "bad_request",
    "HfHubHTTPError": "http",
}
# EntryNotFoundError's local sibling is the offline cache's miss, not an answer from the Hub
_NOT_HTTP = {"LocalEntryNotFoundError"}

# Files vLLM and transformers look for and go on without: a 404 for one is printed and passed over.
OPTIONAL_FILES = frozenset((
    "generation_config.json", "preprocessor_config.json", "processor_config.json",
    "video_preprocessor_config.json", "chat_template.json", "chat_template.jinja", "special_tokens_map.json",
    "added_tokens.json", "adapter_config.json", "custom_generate/generate.py", "quantize_config.json",
    "quant_config.json", "hf_quant_config.json", "modules.json", "sentence_bert_config.json",
    "config_sentence_transformers.json",
))
# Files loading cannot do without (by name or by extension): the repo at that revision lacks the model.
REQUIRED_FILES = frozenset(("config.json", "tokenizer.json", "tokenizer_config.json", "tokenizer.model",
                            "vocab.json", "merges.txt", "model_index.json", "params.json"))
REQUIRED_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")

_STATUS = regex_cache.compile(
    r"\b(?P<s>[1-5]\d\d) (?:Client|Server) Error\b"             # requests / the class's own first line
    r"|(?:Client|Server) error '(?P<h>[1-5]\d\d)\b"              # httpx
    r"|(?:^|\n|\s)(?P<f>[45]\d\d) (?:Forbidden|Too Many Requests|Unauthorized|Not Found)\b")
_URL = regex_cache.compile(r"(?:for url:?|Cannot access content at:) '?(?P<url>https?://[^\s'\"]+?)'?\.?(?=[\s\"]|$)")
_HOST = regex_cache.compile(r"^https?://(?P<host>[^/:\s]+)")
_HUB_HOSTS = regex_cache.compile(r"(?:^|\.)(?:huggingface\.co|hf\.co)$")
# https://huggingface.co/<repo>/resolve/<rev>/<file> (datasets/ and spaces/ prefixed), or the API's
# /api/models/<repo>[/revision/<rev>|/tree/<rev>/...]
_RESOLVE = regex_cache.compile(r"^https?://[^/]+/(?:(?:datasets|spaces)/)?(?P<repo>[\w.-]+(?:/[\w.-]+)?)/resolve/"
                      r"(?P<rev>[^/]+)/(?P<file>[^?#\s]+)")
_API = regex_cache.compile(r"^https?://[^/]+/api/(?:models|datasets|spaces)/(?P<repo>[\w.-]+(?:/(?!(?:revision|tree|paths-info)/)[\w.-]+)?)"
                  r"(?:/(?:revision|tree|paths-info)/(?P<rev>[^/?#\s]+)(?:/(?P<file>[^?#\s]+))?)?")
_STOP = regex_cache.compile(r"^(?:Traceback \(most recent call last\)|The above exception|During handling of the above"
                   r"|File \"|(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt): )")
MAX_LINES = 12
# The statuses a plain HfHubHTTPError gets a hand-written `{?hub_http_<status>}` paragraph for.
ADVISED_STATUS = frozenset((401, 403, 404, 416))


# Names only huggingface_hub gives its classes; another (BadRequestError: openai's too) is the Hub's only
# when printed with its module or raised in a huggingface_hub frame.
_HUB_WORDS = regex_cache.compile(r"HfHub|Repo|Entry|Revision")


# The paragraph huggingface_hub prints under its 404s' status line ("404 Client Error.\n\nEntry Not Found for
# url: ..."), worded alike from 0.x to 1.x (hf_raise_for_status): pasted alone, without the exception line
# above it, it still names the class.
_CLASS_TEXT = regex_cache.compile(r"(?P<what>Entry|Revision|Repository) Not Found for url: https?://")
_TEXT_CLASS = {"Entry": "EntryNotFoundError", "Revision": "RevisionNotFoundError",
               "Repository": "RepositoryNotFoundError"}


def class_of_text(message: str) -> str | None:
    """huggingface_hub's class for its own 404 paragraph (`Entry Not Found for url: ...`), else None."""
    found = _CLASS_TEXT.match(message.strip())
    return "huggingface_hub.errors." + _TEXT_CLASS[found.group("what")] if found else None


def hub_class(ix, exc_type: str | None, hub_frames: bool = False) -> tuple[str, str] | None:
    """(class name, its paragraph key) when `exc_type` is one of huggingface_hub's HTTP errors."""
    if not exc_type:
        return None
    module, _, name = exc_type.rpartition(".")
    if name in _NOT_HTTP or module and not module.startswith("huggingface_hub"):
        return None
    if not module and not hub_frames and not _HUB_WORDS.search(name):
        return None
    key = CLASS_KEYS.get(name)
    if key:
        return (name, key) if _hub_defines(ix, name) else None
    for cls in ix.exception_class(name):
        if cls.package != "huggingface_hub":
            continue
        for base in cls.bases:
            if base in CLASS_KEYS:
                return name, CLASS_KEYS[base]
    return None


def _file_kind(path: str) -> str | None:
    """"optional", "required", or None for a file the tables do not know."""
    name = path.rsplit("/", 1)[-1]
    if path in OPTIONAL_FILES or name in OPTIONAL_FILES:
        return "optional"
    if name in REQUIRED_FILES or name.endswith(REQUIRED_SUFFIXES):
        return "required"
    return None


def _hub_defines(ix, name: str) -> bool:
    return any(c.package == "huggingface_hub" for c in ix.exception_class(name))


def body(text: str, line_no: int, first: str) -> str:
    """The exception's whole message: its line and the lines printed under it, across the one blank line
    huggingface_hub puts after its status line, up to the next traceback, chained note or exception."""
    lines = text.split("\n")[line_no:line_no + MAX_LINES]
    out, blanks = [first], 0
    for raw in lines:
        line = strip_prefixes(raw)[2].strip()
        if not line:
            blanks += 1
            if blanks > 1:
                break
            continue
        if _STOP.match(line):
            break
        out.append(line)
    return "\n".join(out)


# The handler a transformers raise site sits in: `except RevisionNotFoundError`, `isinstance(e, GatedRepoError)`.
_HANDLED = regex_cache.compile(r"(?:\bexcept\s+\(?|isinstance\(\w+,\s*\(?)(?P<cls>[A-Z]\w*Error)\b")
_WRAPPER_REPO = ("path_or_repo", "path_or_repo_id", "pretrained_model_name_or_path")
_REPO_ID = regex_cache.compile(r"[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?")


def read_wrapped(ix, exc_type: str | None, message: str) -> dict | None:
    """The values for transformers' OSError that rewords one of the Hub's HTTP errors, by the handler its
    raise site is in; None for any other message."""
    if not exc_type or exc_type.rsplit(".", 1)[-1] not in ("OSError", "EnvironmentError"):
        return None
    for match in ix.match("transformers", message, exc_type):
        handled = {m.group("cls") for w in match.site.where for m in _HANDLED.finditer(w.get("condition") or "")}
        found = [hub_class(ix, "huggingface_hub.errors." + c) for c in sorted(handled)]
        found = [f for f in found if f]
        if len(found) != 1:
            continue
        name, key = found[0]
        caps = match.captures
        repo = next((caps[k] for k in _WRAPPER_REPO if caps.get(k)), None)
        # transformers words a folder that lacks the file alike: only a repo id was asked of the Hub
        if not repo or not _REPO_ID.fullmatch(repo):
            return None
        values = {"hub_class": name, f"hub_{key}": True, "hub_wrapped": True, "hub_repo": repo}
        if caps.get("revision"):
            values["hub_revision"] = caps["revision"]
        return values
    return None


def read(ix, exc_type: str | None, message: str, text: str, line_no: int, hub_frames: bool = False) -> dict | None:
    """The values of an answer for a huggingface_hub HTTP error, or None when it is not one;
    `hub_frames`: the traceback shows huggingface_hub's frames."""
    found = hub_class(ix, exc_type, hub_frames)
    if found is None:
        return None
    name, key = found
    whole = body(text, line_no, message)
    values: dict = {"hub_class": name, f"hub_{key}": True}
    status = _STATUS.search(whole)
    if status:
        code = int(status.group("s") or status.group("h") or status.group("f"))
        # the Hub's overload and its outages are hf-rate-limited's and hf-server-error's (and a gateway's 5xx
        # in front of a mirror reads as the Hub unreachable): the class adds nothing to those
        if key == "http" and (code == 429 or code >= 500):
            return None
        values["hub_status"] = str(code)
        advised = code in ADVISED_STATUS
        import http             # here: building HTTPStatus cost every stack answer 1-2 ms, and only this reads it
        try:
            st = http.HTTPStatus(code)
            values["hub_status_phrase"] = st.phrase
            # the standard's one-line meaning, for a status with no paragraph of its own ("Request
            # forbidden -- authorization will not help" says the opposite of what a 403 means here)
            values["hub_status_meaning"] = None if advised else st.description or None
        except ValueError:
            pass
        if key == "http" and advised:
            values[f"hub_http_{code}"] = True
    url = _URL.search(whole)
    if url:
        values["hub_url"] = url.group("url")
        resolved = _RESOLVE.match(values["hub_url"]) or _API.match(values["hub_url"])
        if resolved:
            values["hub_repo"] = resolved.group("repo")
            if resolved.group("rev"):
                values["hub_revision"] = resolved.group("rev")
            file = resolved.groupdict().get("file")
            if file:
                values["hub_file"] = file
                kind = _file_kind(file)
                if kind and (key == "entry" or key == "http" and values.get("hub_status") == "404"):
                    values[f"hub_entry_{kind}"] = True
                # the Hub names a missing file (X-Error-Code: EntryNotFound) and huggingface_hub raises
                # EntryNotFoundError, which callers that skip an optional file catch; a server that does
                # not (a mirror, a proxy) gets the plain class for the same 404
                if key == "http" and values.get("hub_status") == "404":
                    values["hub_plain_404_file"] = True
        host = _HOST.match(values["hub_url"])
        if host and not _HUB_HOSTS.search(host.group("host")):
            values["hub_host"] = host.group("host")
    if "fine-grained token" in whole:
        values["hub_fine_grained"] = True
    if "Invalid credentials in Authorization header" in whole or "Invalid username or password" in whole:
        values["hub_bad_token"] = True
    return {k: v for k, v in values.items() if v is not None}
