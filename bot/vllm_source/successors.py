"""What took the place of an engine argument, env var or config field: decided when the index is
built, from every release at once.

Part of the index build. In order, the first that names one wins:
1. "deprecation notice": a sentence of vLLM's argument, config or env modules that says the name is
   deprecated or gone and names its successor ("`--swap-space` is deprecated ... use
   `--kv-offloading-size`", "Using VLLM_ATTENTION_BACKEND environment variable is deprecated ...
   Please use --attention-config.backend"); a flag of a config object's field
   (`--attention-config.backend`) is the engine argument that sets that field (`attention_backend`);
2. "deprecation in its help" / "deprecation in its doc": the name's own help text or comment says
   it is deprecated and to use another name of the same kind ("Level is deprecated ... Please use
   mode.");
3. only for a name that went: one that arrived in the release it left and sets the same config field
   ("same config field"), or says nearly the same ("same help text" / "same doc text").
"""

from __future__ import annotations

import re

from .scan_deprecations import NOTICE, REPLACEMENT

NOTICE_REACH = 240          # characters after the deprecation word in which a successor is named


class Names:
    """The names of one kind (args, env vars, the fields of one config class) in every release, and
    how to read a name a sentence gives (a flag, a dotted config flag) as one of them."""

    def __init__(self, kind: str, named: dict[str, list[tuple[int, dict]]], args: dict[str, list] | None = None):
        self.kind, self.named = kind, named
        self.args = args if args is not None else (named if kind == "args" else {})
        self.flags: dict[str, str] = {}
        for name in sorted(self.args):
            for _, rec in self.args[name]:
                for flag in [rec.get("flag"), rec.get("no_flag"), *(rec.get("aliases") or [])]:
                    if flag:
                        self.flags.setdefault(flag, name)

    def arg_of_flag(self, flag: str) -> str | None:
        """`--kv-offloading-size` → kv_offloading_size; `--attention-config.backend` → the argument
        that sets AttentionConfig.backend, else `attention_config.backend`."""
        head, _, field = flag.partition(".")
        name = self.flags.get(head) or (head.lstrip("-").replace("-", "_") if head.lstrip("-").replace("-", "_")
                                        in self.args else None)
        if not field:
            return name
        if name is None:
            return None
        classes = {t for _, rec in self.args[name] for t in re.findall(r"\b[A-Z]\w*Config\b",
                                                                       f"{rec.get('type', '')} {rec.get('factory', '')}")}
        for other in sorted(self.args):
            if any((rec.get("config") or [None])[0] in classes and rec["config"][1] == field
                   for _, rec in self.args[other]):
                return other
        return f"{name}.{field}"

    def read(self, said: str, own: str) -> str | None:
        """The name of this kind a sentence gives as a successor, or None."""
        said = said.split("(")[0].rstrip(".")
        if said.startswith("-"):
            found = self.arg_of_flag(said)
            if found is None and self.kind == "args":
                found = said.lstrip("-").replace("-", "_")
            if found and self.kind != "args" and found not in self.args and "." not in found:
                return None
        elif said.startswith("VLLM_") or self.kind != "args":
            found = said
        else:
            found = said if said in self.named else None
        return None if found in (None, own) else found


def notice_successor(name: str, flags: list[str], notices: list, names: Names, files: set | None = None) -> str | None:
    """The successor the newest deprecation notice about `name` (or one of its flags) gives: the
    name the notice's own parse found, else a name of the same kind it says to use."""
    wanted = {name, name.lstrip("-").replace("-", "_"), *flags}
    found = []
    for rels, subjects, replacement, text, where in notices:
        if files is not None and not any(w in files for w in where[1::3]):
            continue
        if any(s in wanted or s.lstrip("-").replace("-", "_") in wanted or s.split(".")[-1] in wanted
               for s in subjects):
            found.append((rels.bit_length(), replacement or "", text))
    for _, replacement, text in sorted(found, reverse=True):
        got = names.read(replacement, name) if replacement else _said(text, name, names)
        if got:
            return got
    return None


def _said(text: str, name: str, names: Names) -> str | None:
    """A name of the kind a deprecation sentence says to use instead ("... Please use mode.")."""
    text = " ".join(text.split())
    notice = NOTICE.search(text)
    if not notice:
        return None
    for rep in REPLACEMENT.finditer(text, notice.start(), notice.end() + NOTICE_REACH):
        said = rep.group(1).split("(")[0].rstrip(".")
        got = names.read(said, name)
        if got and (got in names.named or said.startswith("-") and names.kind == "args"):
            return got
    return None


def help_successor(name: str, per_release: list[tuple[int, dict]], text_key: str, names: Names) -> str | None:
    """The name of the same kind that the name's own help text (or comment) says to use instead,
    after saying it is deprecated or gone."""
    seen = set()
    for _, rec in sorted(per_release, key=lambda x: -x[0]):
        text = rec.get(text_key) or ""
        if text and text not in seen:
            seen.add(text)
            got = _said(text, name, names)
            if got:
                return got
    return None


def same_as_newcomer(named: dict[str, list[tuple[int, dict]]], n_releases: int, text_key: str) -> dict[str, list[str]]:
    """{removed name: [the name that took its place, why]} for a name that goes in release R when
    one that appears in R sets the same config field, or says the same (help text or comment)."""
    from rapidfuzz import fuzz
    present: dict[int, set[str]] = {}
    for name, per_release in named.items():
        for ri, _ in per_release:
            present.setdefault(ri, set()).add(name)
    out: dict[str, list[str]] = {}
    for name, per_release in named.items():
        last, rec = max(per_release, key=lambda x: x[0])
        if last + 1 >= n_releases:
            continue
        newcomers = present.get(last + 1, set()) - present.get(last, set())
        text = rec.get(text_key) or ""
        for other in sorted(newcomers):
            new = next(r for ri, r in named[other] if ri == last + 1)
            if rec.get("config") and new.get("config") == rec["config"]:
                out[name] = [other, "same config field"]
                break
            if len(text) >= 30 and fuzz.token_set_ratio(text, new.get(text_key) or "") >= 90:
                out[name] = [other, f"same {text_key} text"]
                break
    return out


def find(named: dict[str, list[tuple[int, dict]]], names: Names, notices: list, n_releases: int,
         text_key: str, notice_files: set | None = None) -> dict[str, list[str]]:
    """{name: [successor, why]} for every name of one kind that has one."""
    out: dict[str, list[str]] = {}
    for name, per_release in named.items():
        flags = sorted({f for _, rec in per_release for f in [rec.get("flag"), *(rec.get("aliases") or [])] if f})
        got = notice_successor(name, flags, notices, names, notice_files)
        if got:
            out[name] = [got, "deprecation notice"]
            continue
        got = help_successor(name, per_release, text_key, names)
        if got:
            out[name] = [got, f"deprecation in its {text_key}"]
    for name, found in same_as_newcomer(named, n_releases, text_key).items():
        out.setdefault(name, found)
    return out
