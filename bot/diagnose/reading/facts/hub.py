"""The Hugging Face Hub's client as a paste shows it: its offline switches, an HTTP error the endpoint answered with, a
connection error of its own downloads, the endpoint it was pointed at (HF_ENDPOINT), ModelScope switched on or
ignored.
"""

from __future__ import annotations

import bisect
import re

from bot.base.lazyre import LazyRe


# The Hub's offline switches as a paste shows them (`HF_HUB_OFFLINE=1 vllm serve ...`, `-e TRANSFORMERS_OFFLINE=1`,
# a compose file's `HF_HUB_OFFLINE: "1"`): transformers then reports a model missing from the cache as "We couldn't
# connect to 'https://huggingface.co'", which reads like a network failure. No library prints the assignment itself.
# (environment variables are case-sensitive: only the values are read in any case)
_HUB_OFFLINE = LazyRe(r"\b(?:HF_HUB_OFFLINE|TRANSFORMERS_OFFLINE)\s*[=:]\s*['\"]?(?:1|(?i:on|yes|true))\b")


# huggingface_hub's class for an HTTP status the endpoint answered with, printed in the paste (its exception line, or
# 1.7+'s "Got: HfHubHTTPError: ..." inside LocalEntryNotFoundError): the endpoint was reached. transformers words
# that failed download as "We couldn't connect to ..." (utils/hub.py: the handler for LocalEntryNotFoundError, which
# huggingface_hub 1.x raises `from` the HfHubHTTPError of the HEAD call, file_download.py
# _raise_on_head_call_error), which is not the network's. GatedRepoError is the same answer (hf-gated-repo's).
_HUB_HTTP_ERROR = LazyRe(r"\b(?:HfHubHTTP|GatedRepo)Error\b")


def hub_http_error(text: str) -> bool:
    """Whether the paste shows huggingface_hub's plain HTTP error class (or GatedRepoError): an HTTP answer."""
    return "Error" in text and bool(_HUB_HTTP_ERROR.search(text))


# httpx's and httpcore's connection errors (huggingface_hub 1.x sends its requests with httpx; 2.x with httpx2) name no
# host: "httpx.ConnectError: [Errno 111] Connection refused", "httpx.ConnectTimeout: timed out" (httpcore
# _exceptions.py map_exceptions raises the socket error's own words; httpx _transports/default.py
# map_httpcore_exceptions raises the same message under its class). Whose request failed, the traceback says: in the
# error's own traceback, the frame that called into the client (huggingface_hub's list_repo_tree paging, its
# model_info); where the error has none (huggingface_hub 1.x keeps its HEAD call's error and raises
# LocalEntryNotFoundError `from` it later, file_download.py _raise_on_head_call_error: the chained errors print without
# frames), the traceback of the exception it caused. A bare line, or a call from another client (openai's, the
# user's own), says nothing of the Hub.
_CLIENT_CONNECT_ERROR = LazyRe(r"^(?:[^\n]*?\] )?(?:httpx2?|httpcore2?)\.(?:ConnectError|ConnectTimeout): ", re.M)
_HUB_CALLER = LazyRe(r"(?:^|/)(?:huggingface_hub/|transformers/utils/hub\.py|vllm/transformers_utils/"
                     r"|vllm/model_executor/model_loader/weight_utils\.py)")
_CLIENT_FRAME = LazyRe(r"(?:^|/)(?:httpx2?|httpcore2?|anyio)/|(?:^|/)contextlib\.py$")
_TRACEBACK_FRAME = LazyRe(r'^File "([^"\n]{1,400})", line \d+, in ')
_CHAINED = ("The above exception was the direct cause", "During handling of the above exception")
MAX_CLIENT_ERRORS = 8       # httpx errors looked at per paste (a retry loop prints one per try)
CHAIN_LINES = 400           # lines read below a frameless error for the traceback of the exception it caused


def _own_frames(lines: list[str], i: int) -> list[str] | None:
    """The paths of the frames of the traceback printed right above line i (outermost first), or None when the
    exception at line i has no traceback of its own (a frame's source line and carets lie between frames)."""
    frames, loose, j = [], 0, i - 1
    while j >= 0 and lines[j] and loose <= 2:
        if lines[j].startswith("Traceback (most recent call last)"):
            return frames[::-1] if frames else None
        found = _TRACEBACK_FRAME.match(lines[j])
        if found:
            frames.append(found.group(1).replace("\\", "/"))
            loose = 0
        else:
            loose += 1
        j -= 1
    return None


def _traceback_below(lines: list[str], j: int) -> list[str]:
    """The paths of the frames of the traceback whose header is line j (outermost first)."""
    frames, since = [], None
    for line in lines[j + 1:]:
        found = _TRACEBACK_FRAME.match(line)
        if found:
            frames.append(found.group(1).replace("\\", "/"))
            since = 0
        elif since is None or since >= 2 or not line:
            break
        else:
            since += 1
    return frames


def hub_client_error(text: str) -> bool:
    """Whether an httpx or httpcore connection error in the paste is one of the Hub client's requests, by its
    traceback (see _CLIENT_CONNECT_ERROR): the frame that called into the HTTP client is huggingface_hub's,
    transformers' hub helpers' or vLLM's download code; or the error has no frames and the exception it caused was
    raised there."""
    if "Connect" not in text:
        return False
    hits = [m.start() for m, _ in zip(_CLIENT_CONNECT_ERROR.finditer(text), range(MAX_CLIENT_ERRORS))]
    if not hits:
        return False
    from bot.diagnose.reading.tracebacks import line_starts, strip_prefixes
    starts = line_starts(text)
    for at in hits:
        i = bisect.bisect_right(starts, at) - 1
        lo = max(0, i - 200)
        hi = min(i + CHAIN_LINES, len(starts) - 1)
        lines = [strip_prefixes(x)[2] for x in text[starts[lo]:starts[hi] if hi > i else len(text)].split("\n")]
        k = i - lo
        own = _own_frames(lines, k)
        if own:
            callers = [f for f in own if not _CLIENT_FRAME.search(f)]
            first_client = next((n for n, f in enumerate(own) if _CLIENT_FRAME.search(f)), None)
            caller = own[first_client - 1] if first_client else (callers[-1] if callers else None)
            if caller and _HUB_CALLER.search(caller):
                return True
            continue
        # no frames of its own: the exceptions it caused, down the chain, to the first one with a traceback
        j = k + 1
        while j < len(lines):
            body = lines[j]
            if not body or body.startswith(_CHAINED) or _CLIENT_CONNECT_ERROR.match(body):
                j += 1
                continue
            if body.startswith("Traceback (most recent call last)"):
                frames = _traceback_below(lines, j)
                if frames and _HUB_CALLER.search(frames[-1]):
                    return True
            break
    return False


# `HF_ENDPOINT=https://mirror.example` as a paste shows it (shell, `-e`/`--env`, compose, `os.environ[...] = ...`): the
# endpoint huggingface_hub sends every request to in place of https://huggingface.co (constants.py ENDPOINT, read from
# HF_ENDPOINT in 0.36.0, 1.31.0 and 2.5.0).
_HF_ENDPOINT = LazyRe(r"\bHF_ENDPOINT['\"\]]*\s*[=:]\s*['\"]?(https?://[^\s'\"`,;)\]]{1,200})")


def hf_endpoint(text: str) -> str | None:
    """The endpoint the paste sets in HF_ENDPOINT (its last value), or None."""
    if "HF_ENDPOINT" not in text:
        return None
    values = _HF_ENDPOINT.findall(text)
    return values[-1].rstrip("/.") if values else None


def hub_offline(text: str) -> bool:
    """Whether the paste sets huggingface_hub's (or transformers') offline mode."""
    return "_OFFLINE" in text and bool(_HUB_OFFLINE.search(text))


# `VLLM_USE_MODELSCOPE=true` as a paste shows it (shell, `-e`/`--env`, compose, `os.environ[...] = ...`). vLLM's
# envs.py turns the switch on only for the value "true" in any case (checked in 0.8.5 and 0.26.0): `=1` or `=yes`
# leave it off, and the ModelScope id then goes to huggingface.co.
_MODELSCOPE = LazyRe(r"\bVLLM_USE_MODELSCOPE['\"\]]*\s*[=:]\s*['\"]?([\w-]+)")


def modelscope(text: str) -> tuple[bool, bool]:
    """(on, set but off): whether the paste turns vLLM's ModelScope switch on, or sets it to a value vLLM reads as
    off."""
    if "VLLM_USE_MODELSCOPE" not in text:
        return False, False
    values = {m.group(1).lower() for m in _MODELSCOPE.finditer(text)}
    on = "true" in values
    return on, bool(values) and not on and not values <= {"false", "0", "no", "off"}
