"""What pip and uv say: the conflicts their resolvers name, the wheels a package ships or pip took and the platform they
are for, the Pythons an index's releases exclude, a package index that failed and why, the transformers installed,
and a package shadowed by a copy elsewhere on sys.path.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe

from .patterns import MAX_CONFLICTS, _P, _all, _first
from .traceback_frames import MAX_FRAMES, _FRAME_PATH, _PACKAGE_ROOT


# A wheel pip took (downloaded, found in its cache, built, was handed): its platform tag is the
# machine's ("torch-2.5.1-cp312-cp312-win_amd64.whl", "vllm-0.2.7-cp311-cp311-linux_x86_64.whl")
_PIP_TOOK_WHEEL = _P(r"^(?!.*(?:none of the wheel's tags|not a supported wheel|Skipping link|requires a different Python))"
                     r".*?(?:Downloading|Using cached|filename=|Saved|Processing)\s*\S*?-(?:cp3\d+|py[23][\w.]*)-\w+-"
                     r"((?:win|macosx|manylinux|musllinux|linux)[\w.]*?)(?:\.whl)", re.M,
                     literals=(".whl",))


# pip's resolver: "vllm 0.5.4 requires torch==2.4.0, but you have torch 2.1.1 which is incompatible."
# and "The conflict is caused by: The user requested torch==2.1.1 / vllm 0.5.4 depends on torch==2.4.0"; a pin from a
# constraints file (PIP_CONSTRAINT, as NGC's containers set it) is "The user requested (constraint) torch==...".
_PIP_REQUIRES = _P(r"^(?:>\s?)?\s*(?P<by>[A-Za-z0-9][\w.-]*) (?P<by_version>\d[\w.+!-]*) requires (?P<package>[A-Za-z0-9][\w.-]*)"
                   r"(?P<required>(?:\[[^\]]*\])?[<>=!~][^,\n]*(?:,[<>=!~][^,\n]*)*)?, but you have (?P=package) (?P<have>\S+) which is incompatible",
                   re.M, literals=(", but you have",))
_PIP_DEPENDS = _P(r"^(?:>\s?)?\s*(?P<by>[A-Za-z0-9][\w.-]*) (?P<by_version>\d[\w.+!-]*) depends on (?P<package>[A-Za-z0-9][\w.-]*)(?P<required>[<>=!~][^\s;]*)?",
                  re.M, literals=(" depends on ",))
_PIP_REQUESTED = _P(r"^(?:>\s?)?\s*The user requested (?:\(constraint\) )?(?P<package>[A-Za-z0-9][\w.-]*)(?P<required>[<>=!~][^\s;]*)?", re.M,
                    literals=("The user requested",))
# uv's resolver (PubGrub) words it as a proof: "Because vllm==0.8.5 depends on torch==2.6.0 and your project depends
# on torch==2.7.0, we can conclude that ...", wrapped at the terminal's width, with a marker in braces after a name
# (`torch{sys_platform == 'linux'}==2.7.0`). Read from its block, unwrapped; a range of vLLM releases
# (`vllm>=0.5.4,<=0.6.3`) names no one release, so only `==` counts.
_UV_START = "No solution found when resolving"
_UV_BLOCK = 8 * 1024
_UV_REQ = r"(?:\{(?P<marker>[^}\n]*)\})?(?P<required>[<>=!~]=?[\w.*+-]*[\w*](?:,[<>=!~]=?[\w.*+-]*[\w*])*)"
_UV_DEPENDS = LazyRe(r"(?P<by>[A-Za-z0-9][\w.-]*)==(?P<by_version>\d[\w.+!-]*\w) depends on (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)
_UV_USER = LazyRe(r"(?<!conclude that )(?:your project depends on|you require) (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)
# uv when every release the index offers pins the same (an index holding one vLLM release): "Because all versions of
# vllm depend on torch==2.7.0 and you require vllm==0.9.2, we can conclude that you require torch==2.7.0." (pubgrub's
# "all versions of {package}" wording, a real uv 0.13.10 run): the release is the one the user asked for
_UV_ALL_DEPEND = LazyRe(r"all versions of (?P<by>[A-Za-z0-9][\w.-]*) depend on (?P<package>[A-Za-z0-9][\w.-]*)" + _UV_REQ)


# uv's resolver, when no wheel of a package fits: "torch==2.7.0 has no wheels with a matching platform tag (e.g.,
# `macosx_13_0_x86_64`)": the example is the best tag of the machine it resolves for
_UV_HOST_TAG = _P(r"has no wheels with a matching platform tag \(e\.g\., `?((?:win|macosx|manylinux|musllinux|linux)\w*)`?\)",
                  literals=("matching platform tag",))
# uv at install time (`uv sync`, `uv pip sync` from a lock made elsewhere): "hint: You're on macOS (`macosx_13_0_arm64`),
# but `vllm` (v0.15.0) only has wheels for the following platforms: ..."; the tag in brackets is the machine's
_UV_YOURE_ON = _P(r"You're on \w+ \(`?((?:win|macosx|manylinux|musllinux|linux)\w*)`?\), but ", literals=("You're on ",))


# uv's hints list the tags a package ships ("Wheels are available for `torch` (v2.7.0) on the following platforms:
# `manylinux_2_28_x86_64`, `win_amd64`", "... only has wheels with the following platform tags: ...", "... only has
# wheels for the following platforms: ..."): a
# `win_amd64` there says nothing of the machine
_UV_TAG_LIST = LazyRe(r"(?i)(?:(?:on|for) the following platforms?|with the following platform tags?): [^\n]*")


# uv's hint of what a package does ship, when none of it fits: "Wheels are available for `torch` (v2.7.0) on the
# following platforms: `manylinux_2_28_x86_64`, ...", "You're using CPython 3.13 (`cp313`), but `torch` (v2.4.0)
# only has wheels with the following Python ABI tags: `cp38`, ...", "... but we only found wheels for `torch`
# (v2.4.0) with the following Python ABI tags: ..."
# (uv before 0.6 or so printed the names and tags without backticks)
_UV_SHIPS = _P(r"(?:Wheels are available for|only found wheels for|but) `?(?P<package>[A-Za-z0-9][\w.-]*?)`? \(v(?P<version>[^)\s]+)\)"
               r"(?: only has wheels)? (?:on|with|for) the following (?P<kind>platform|Python ABI|Python implementation)"
               r"(?: tag)?s?: (?P<tags>`?[\w.]+`?(?:, `?[\w.]+`?){0,40})", literals=("Wheels are available for", "only has wheels",
                                                                                "only found wheels for"))


def uv_wheels_shipped(text: str) -> dict:
    """{package, version, kind, tags} of uv's hint saying which wheels a package has; {} when there is none."""
    if "the following" not in text:
        return {}
    m = _UV_SHIPS.search(text)
    return {k: m.group(k) for k in ("package", "version", "kind", "tags")} if m else {}


# uv's hint when the first index that has a package lacks the version asked for: "`torch` was found on
# https://download.pytorch.org/whl/cu124, but not at the requested version (torch==2.7.0). A compatible version
# may be available on a subsequent index (e.g., https://pypi.org/simple). By default, uv will only consider ..."
_UV_UNCHECKED = _P(r"`(?P<package>[A-Za-z0-9][\w.-]*)` was found on (?P<index>\S+), but not at the requested version "
                   r"\((?P<range>[^)]{1,400})\)\. A compatible version may be available on a subsequent index "
                   r"\(e\.g\., (?P<next_index>[^)\s]+)\)", literals=("` was found on ",), span=800)


def uv_unchecked_index(text: str) -> dict:
    """{package, index, range, next_index} of uv's first-index hint; {} when there is none."""
    m = _UV_UNCHECKED.search(text) if "subsequent index" in text else None
    if not m:
        return {}
    return {**{k: m.group(k) for k in ("package", "index", "next_index")}, "range": " ".join(m.group("range").split())}


# the platform a pip or uv command chose wheels for: pip's `--platform manylinux_2_28_x86_64`, uv's `--python-platform
# aarch64-manylinux_2_28` (its Linux targets that name no glibc, `x86_64-unknown-linux-gnu`, are left out)
_PIP_PLATFORM_FLAG = _P(r"\b(?:pip3?|uv pip) (?:download|install|wheel|compile|sync)\b[^\n]*?--(?:python-)?platform[ =]"
                        r"((?:win|macosx|manylinux|musllinux)\w*|(?:x86_64|aarch64)-(?:manylinux_\d+_\d+|pc-windows-msvc|apple-darwin))",
                        literals=("-platform",))
_UV_TARGETS = {"x86_64-pc-windows-msvc": "win_amd64", "aarch64-pc-windows-msvc": "win_arm64",
               "x86_64-apple-darwin": "macosx_13_0_x86_64", "aarch64-apple-darwin": "macosx_13_0_arm64"}


def platform_flag(text: str) -> str | None:
    """The platform tag a pip or uv command line asked wheels for (`--platform`, `--python-platform`)."""
    m = _PIP_PLATFORM_FLAG.search(text) if "-platform" in text else None
    if not m:
        return None
    target = m.group(1)
    if target in _UV_TARGETS:
        return _UV_TARGETS[target]
    arch, _, glibc = target.partition("-manylinux_")
    return f"manylinux_{glibc}_{arch}" if glibc else target


# pip 22+: "ERROR: Ignored the following versions that require a different python version: 0.9.2 Requires-Python
# <3.13,>=3.9; 0.10.0 Requires-Python <3.13,>=3.9; ..." (the releases whose Requires-Python excludes the Python it chooses for)
_PIP_PY_IGNORED = _P(r"Ignored the following versions that require a different python version: ([^\n]{1,8000})",
                     literals=("require a different python version",))
_IGNORED_ONE = LazyRe(r"(\d[\w.+!-]*) Requires-Python ([^;\n]+)")


def pip_python_ignored(text: str) -> dict[str, str]:
    """{version: Requires-Python} of the releases pip says it ignored for the Python it chose for."""
    m = _PIP_PY_IGNORED.search(text) if "different python version" in text else None
    return {v: spec.strip() for v, spec in _IGNORED_ONE.findall(m.group(1))} if m else {}


def wheel_platform(text: str) -> str | None:
    """The platform tag of the machine pip or uv chose wheels for: uv's example of its best tag, else the
    wheels pip took (`win_amd64`, `macosx_11_0_arm64`, `manylinux_2_17_aarch64`), when those the paste
    shows agree on the OS and CPU; None otherwise."""
    if "matching platform tag" in text:
        m = _UV_HOST_TAG.search(text)
        if m:
            return m.group(1)
    if "You're on " in text:
        m = _UV_YOURE_ON.search(text)
        if m:
            return m.group(1)
    flag = platform_flag(text)
    if flag:
        return flag
    if ".whl" not in text:
        return None
    tags = [m.group(1).split(".")[0] for m in _all(_PIP_TOOK_WHEEL, text)]
    kinds = {(platform_os(t), platform_arch(t)) for t in tags}
    return tags[0] if len(kinds) == 1 else None


# A wheel tag's platform in words: the OS and the CPU (the stack index's wheel table reads tags the same way)
_ARCH_WORDS = {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
               "ppc64le": "ppc64le", "s390x": "s390x", "i686": "x86", "win32": "x86"}


def platform_os(platform: str) -> str:
    """linux of manylinux_2_17_x86_64 and linux_x86_64, windows of win_amd64, macos of macosx_11_0_arm64."""
    p = platform
    return "linux" if "linux" in p else "windows" if p.startswith("win") else "macos" if p.startswith("macosx") else "any"


def platform_arch(platform: str) -> str | None:
    """x86_64 of manylinux1_x86_64, win_amd64, macosx_11_0_x86_64; aarch64 of *_aarch64 and *_arm64."""
    last = platform.rsplit("_", 1)[-1] if "_" in platform else platform
    if platform.endswith("x86_64"):
        return "x86_64"
    return _ARCH_WORDS.get(last)


def pip_conflicts(text: str) -> list[dict]:
    """What pip's resolver said does not fit: {package, required, by, by_version, have}, in order."""
    if "pip" not in text and "requires" not in text and "depends on" not in text and _UV_START not in text:
        return []
    out = []
    for m in _all(_PIP_REQUIRES, text):
        out.append({"package": m.group("package").lower(), "required": (m.group("required") or "").strip(),
                    "by": m.group("by").lower(), "by_version": m.group("by_version"), "have": m.group("have")})
    for m in _all(_PIP_DEPENDS, text):
        out.append({"package": m.group("package").lower(), "required": m.group("required") or "",
                    "by": m.group("by").lower(), "by_version": m.group("by_version"), "have": None})
    for m in _all(_PIP_REQUESTED, text, 8):
        out.append({"package": m.group("package").lower(), "required": m.group("required") or "",
                    "by": "user", "by_version": None, "have": None})
    return out + _uv_conflicts(text)


def _uv_conflicts(text: str) -> list[dict]:
    at = text.find(_UV_START)
    if at < 0:
        return []
    block = " ".join(text[at:at + _UV_BLOCK].split())
    # "vllm==0.11.1 depends on Python>=3.10,<3.14" is a Requires-Python, not a package
    out = [{"package": m.group("package").lower(), "required": m.group("required"), "by": m.group("by").lower(),
            "by_version": m.group("by_version"), "have": None, "marker": m.group("marker")}
           for m in _UV_DEPENDS.finditer(block) if m.group("package") != "Python"]
    users = [{"package": m.group("package").lower(), "required": m.group("required"), "by": "user",
              "by_version": None, "have": None} for m in _UV_USER.finditer(block)]
    asked = {u["package"]: u["required"][2:] for u in users if re.fullmatch(r"==\d[\w.+!-]*", u["required"] or "")}
    out += [{"package": m.group("package").lower(), "required": m.group("required"), "by": m.group("by").lower(),
             "by_version": asked[m.group("by").lower()], "have": None, "marker": m.group("marker")}
            for m in _UV_ALL_DEPEND.finditer(block)
            if m.group("package") != "Python" and m.group("by").lower() in asked]
    return (out + users)[:MAX_CONFLICTS]


# pip or uv failing to reach a package index: the URL it asked for and why the connection failed, by the words
# of urllib3 (pip: "connection broken by 'ProxyError(...)'", "Could not fetch URL <url>: There was a problem
# confirming the ssl certificate") and of reqwest/hyper/rustls (uv: "error sending request for url (<url>)",
# then its causes: "dns error", "tunnel error", "tls handshake eof", "invalid peer certificate: UnknownIssuer").
# uv's own Python downloads (python-build-standalone on GitHub) are not an index.
_INDEX_URL = [
    _P(r"error sending request for url \((?!https?://github\.com/astral-sh/)(https?://[^)\s]+)\)",
       literals=("error sending request for url",)),
    _P(r"Failed to fetch: `?(?!https?://github\.com/astral-sh/)(https?://[^\s`]+)", literals=("Failed to fetch:",)),
    _P(r"Could not fetch URL (https?://\S+?): ", literals=("Could not fetch URL",)),
    _P(r"^Looking in indexes: (https?://[^\s,]+)", re.M, literals=("Looking in indexes:",)),
]
# pip (urllib3) when its retries are spent on a file: "Could not install packages due to an OSError:
# HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Max retries exceeded with url: /packages/..."
_URLLIB3_POOL = _P(r"(HTTPS?)ConnectionPool\(host='([^']+)', port=(\d+)\): Max retries exceeded with url: (/\S*?)(?: \(|$)",
                   re.M, literals=("ConnectionPool(host=",))
# pip (urllib3) when a file's download stalls after it began: urllib3's response reader raises "ReadTimeoutError:
# HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out." with no URL, which pip's
# "Downloading <url or file name> (419.4 MB)" line above it names
_URLLIB3_READ_STALLED = _P(r"(HTTPS?)ConnectionPool\(host='([^']+)', port=(\d+)\): Read timed out\.",
                           literals=("Read timed out.",))
_PIP_DOWNLOADING = _P(r"^\s*Downloading (https?://\S+)", re.M, literals=("Downloading http",))
# pip 25.1+ when a file's download broke off and resuming it failed (IncompleteDownloadError): "Download failed
# after 6 attempts because not enough bytes were received (3.1 MB/419.4 MB)", its context "URL: <url>"
_PIP_INCOMPLETE = _P(r"Download failed (?:after \d+ attempts )?because not enough bytes were received"
                     r"(?:.{0,200}?URL: (https?://[^\s#]+))?", re.S, literals=("not enough bytes were received",),
                     span=400)
_INDEX_FAILURE_MARKS = ("error sending request for url", "Failed to fetch:", "Could not fetch URL",
                        "after connection broken by", "Max retries exceeded with url", "Read timed out.",
                        "not enough bytes were received",
                        # uv (0.5+) when a file's download stalled past UV_HTTP_TIMEOUT; it names no URL
                        "Failed to download distribution due to network timeout")
# why, first match wins: a proxy's and TLS's words come before the socket error they wrap
_INDEX_ERRORS = (
    ("incomplete", ("not enough bytes were received",)),
    # uv (reqwest) when the index answered with a 5xx status each time it tried: "HTTP status server error
    # (503 Service Unavailable) for url (...)"
    ("http_5xx", ("HTTP status server error (5",)),
    ("proxy", ("ProxyError(", "tunnel error", "Cannot connect to proxy", "Unable to connect to proxy")),
    ("tls_cert", ("CERTIFICATE_VERIFY_FAILED", "invalid peer certificate", "SSLCertVerificationError")),
    ("tls_eof", ("tls handshake eof", "UNEXPECTED_EOF_WHILE_READING", "EOF occurred in violation of protocol",
                 "SSLEOFError")),
    ("dns", ("dns error", "Name or service not known", "Temporary failure in name resolution",
             "nodename nor servname provided", "getaddrinfo failed", "No address associated with hostname")),
    ("refused", ("Connection refused",)),
    ("read_timeout", ("ReadTimeoutError(", "Read timed out", "Failed to download distribution due to network timeout")),
    ("timeout", ("ConnectTimeoutError(", "operation timed out", "Connection timed out", "timed out")),
    ("reset", ("Connection reset by peer", "ConnectionResetError(")),
    ("tls", ("SSLError(", "tls handshake")),
)


def pip_installing_full(text: str) -> bool:
    """Whether pip ran out of disk while it wrote the packages into the environment: its "Installing collected
    packages:" line (pip/_internal/commands/install.py), then "[Errno 28] No space left on device" with no file named.
    Everything was downloaded and unpacked by then; what filled is the disk of the environment's site-packages."""
    at = text.rfind("Installing collected packages:")
    return at >= 0 and "[Errno 28] No space left on device" in text[at:]


def index_failure(text: str) -> dict:
    """{index_url, index_host, index_error} of a package index pip or uv could not reach; {} when the paste
    shows no such failure. index_error: incomplete | http_5xx (with index_status) | proxy | tls_cert | tls_eof | dns |
    refused | read_timeout | timeout | reset | tls, or absent when the paste does not say."""
    if not any(m in text for m in _INDEX_FAILURE_MARKS):
        return {}
    pool = _URLLIB3_POOL.search(text) if "ConnectionPool(host=" in text else None
    stalled = _URLLIB3_READ_STALLED.search(text) if not pool and "ConnectionPool(host=" in text else None
    incomplete = _PIP_INCOMPLETE.search(text) if "not enough bytes were received" in text else None
    uv_stalled = "Failed to download distribution due to network timeout" in text
    if not (_first(_INDEX_URL[:3], text) or "after connection broken by '" in text or pool or stalled
            or incomplete or uv_stalled):
        return {}
    out: dict = {}
    url = _first(_INDEX_URL[:3], text) or (incomplete.group(1) if incomplete else None)
    if not url and pool:
        scheme, host, port, path = pool.groups()
        default = "443" if scheme == "HTTPS" else "80"
        url = f"{scheme.lower()}://{host}{'' if port == default else ':' + port}{path}"
    if not url and stalled:
        # the file pip was downloading, where its line shows the URL (pip shortens PyPI's own to the file name)
        downloading = [m.group(1) for m in _all(_PIP_DOWNLOADING, text[:stalled.start()], 64)]
        scheme, host, port = stalled.groups()
        default = "443" if scheme == "HTTPS" else "80"
        url = downloading[-1] if downloading else f"{scheme.lower()}://{host}{'' if port == default else ':' + port}/"
    url = url or _first(_INDEX_URL[3:], text)
    if url:
        out["index_url"] = url
        host = re.match(r"https?://(?:[^@/\s]*@)?([^/:\s]+)", url)
        if host:
            out["index_host"] = host.group(1)
    kind = next((k for k, marks in _INDEX_ERRORS if any(m in text for m in marks)), None)
    if kind == "timeout" and "error decoding response body for url" in text:
        kind = "read_timeout"       # uv: the answer began, its body then stalled ("operation timed out" under it)
    if kind == "http_5xx":
        status = re.search(r"HTTP status server error \((5\d\d)\b", text)
        out["index_status"] = status.group(1)
    if kind:
        out["index_error"] = kind
    return out


# The transformers the paste says is installed: a version listing (`pip list`, `conda list`,
# `pip freeze`, a framework's "library versions" block, transformers' own `env` report, an issue
# template's "Transformers version: X") or pip's conflict note. A line starts with the name, so a
# command (`pip install transformers==4.57.6`, often the fix tried afterwards) is not read as one.
_TRANSFORMERS_LISTED = [
    _P(r"^\s*(?:[-*]\s*)?(?:\[pip3?\]\s*|\[conda\]\s*)?(?:\*\*|__)?`?transformers`?(?:\s+version)?(?:\*\*|__)?\s*(?:==|:|\s)\s*v?"
       r"(\d+\.\d+(?:\.\d+)?(?:\.?(?:dev|rc|post)\d+)?)"
       r"(?:\s+\S+\s+(?:pypi|conda-forge|defaults)\S*)?\s*$",
       re.M | re.I, literals=("ransformers",)),
    _P(r"^Name: transformers\s*\nVersion: (\d+\.\d+(?:\.\d+)?\S*)", re.M, literals=("Name: transformers",), span=80),
]


def transformers_installed(text: str, packages: dict, conflicts: list[dict]) -> str | None:
    found = packages.get("transformers")
    if not found:
        found = next((c["have"] for c in conflicts if c["package"] == "transformers" and c.get("have")), None)
    return found or _first(_TRANSFORMERS_LISTED, text)


# Packages a copy elsewhere on sys.path can shadow (PYTHONPATH, the user site, the working directory).
_SHADOWABLE = ("transformers", "tokenizers", "huggingface_hub", "torch", "triton", "numpy", "vllm")
_PACKAGE_IN_PATH = LazyRe(r"^(?P<root>.*)[/\\](?P<pkg>%s)[/\\][^\"]*\.py$" % "|".join(_SHADOWABLE))


def shadowing(text: str) -> dict:
    """Where the traceback's packages were imported from, when one of them comes from another folder
    than vLLM itself: {"shadowed_package", "shadowed_root", "vllm_root"} (an older transformers
    ahead on PYTHONPATH, a user-site torch); {} when they agree or the paste does not say."""
    if 'File "' not in text:
        return {}
    roots: dict[str, str] = {}
    for path in _FRAME_PATH.findall(text)[:MAX_FRAMES]:
        installed = _PACKAGE_ROOT.match(path)
        if installed:               # under site-packages: the first folder below it is the package
            top = re.split(r"[/\\]", path[installed.end():], maxsplit=1)[0]
            if top in _SHADOWABLE:
                roots.setdefault(top, installed.group(0).rstrip("/\\"))
            continue
        m = _PACKAGE_IN_PATH.match(path)        # a folder on PYTHONPATH, a checkout, the working directory
        if m:
            roots.setdefault(m.group("pkg"), m.group("root"))
    vllm_root = roots.pop("vllm", None)
    if not vllm_root:
        return {}
    other = next(((p, r) for p, r in roots.items() if r != vllm_root), None)
    if other is None:
        return {}
    return {"shadowed_package": other[0], "shadowed_root": other[1], "vllm_root": vllm_root}
