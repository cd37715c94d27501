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
   mode."), or points to one ("Deprecated, see profiler_config.": an environment variable's may be
   an engine argument, narrowed to the field of its config named after the variable,
   `profiler_config.torch_profiler_dir` for VLLM_TORCH_PROFILER_DIR);
3. an engine argument that set a field of a config class vLLM renamed (DecodingConfig became
   StructuredOutputsConfig in 0.11, and `--guided-decoding-backend` stopped setting anything): the
   argument that takes the new class, with the field (`structured_outputs_config.backend`)
   ("field of the renamed config class");
4. only for a name that went: one that arrived in the release it left and sets the same config field
   ("same config field"), or says nearly the same ("same help text" / "same doc text").

A notice's text joins the strings of one function, which may speak of several names ("The
`--qlora-adapter-name-or-path` has no effect ... [DEPRECATED] The `--enable-reasoning` flag is
deprecated ... Use `--reasoning-parser`"): a name's successor is read only from its own part, up
to a sentence that says another name is deprecated or gone. A notice about one value of a flag
("`--convert mm_encoder_only` is deprecated") names no successor of the flag.
"""

from __future__ import annotations

import re

from .scan_deprecations import NOTICE, REPLACEMENT, names_in

NOTICE_REACH = 240          # characters after the deprecation word in which a successor is named
RENAMED_CLASS_OVERLAP = 0.5  # share of a gone config class's fields a new class must have to be its new name
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CLASS_PREFIX = re.compile(r"^[A-Z]\w*\.")
_SEE = re.compile(r"\bsee\s+[`'\"]?(--[\w-]+(?:\.[\w-]+)*|VLLM_\w+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")


class Names:
    """The names of one kind (args, env vars, the fields of one config class) in every release, and
    how to read a name a sentence gives (a flag, a dotted config flag) as one of them."""

    def __init__(self, kind: str, named: dict[str, list[tuple[int, dict]]], args: dict[str, list] | None = None,
                 cls: str | None = None):
        self.kind, self.named, self.cls = kind, named, cls
        self.args = args if args is not None else (named if kind == "args" else {})
        self.flags: dict[str, str] = {}
        for name in sorted(self.args):
            for _, rec in self.args[name]:
                for flag in [rec.get("flag"), rec.get("no_flag"), *(rec.get("aliases") or [])]:
                    if flag:
                        self.flags.setdefault(flag, name)

    def arg_of_flag(self, flag: str, own: str | None = None) -> str | None:
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
            if other != own and any((rec.get("config") or [None])[0] in classes and rec["config"][1] == field
                   for _, rec in self.args[other]):
                return other
        return f"{name}.{field}"

    def read(self, said: str, own: str) -> str | None:
        """The name of this kind a sentence gives as a successor, or None. A dotted name is a
        field of the config an argument takes (`eplb_config.num_redundant_experts`, the flag
        `--eplb-config.num_redundant_experts`); for a config class's own field, the field
        (`SchedulerConfig.enable_chunked_prefill`, `--attention-config.mla_prefill_backend` of
        AttentionConfig)."""
        said = said.split("(")[0].rstrip(".")
        if self.kind == "fields" and self.cls and said.startswith(self.cls + "."):
            said = said[len(self.cls) + 1:]
        elif self.kind == "fields" and _CLASS_PREFIX.match(said):
            return None             # a field of another class
        head = said.lstrip("-").split(".")[0].replace("-", "_")
        head = self.flags.get(said.split(".")[0], head) if said.startswith("-") else head
        if "." in said and self.kind == "fields" and self.cls and head in self.args:
            taken = {t for _, rec in self.args[head]
                     for t in re.findall(r"\b[A-Z]\w*Config\b", f"{rec.get('type', '')} {rec.get('factory', '')}")}
            if self.cls in taken:           # a field of this very class
                field = said.split(".", 1)[1].replace("-", "_")
                return field if field in self.named and field != own else None
        if "." in said and not said.startswith("-") and head in self.args and self.kind == "args":
            said = "--" + said      # `eplb_config.x` is what `--eplb-config.x` sets
        if said.startswith("-"):
            found = self.arg_of_flag(said, own)
            if found is None and self.kind == "args":
                found = said.lstrip("-").replace("-", "_")
            if found and self.kind != "args" and found not in self.args and "." not in found:
                return None
        elif said.startswith("VLLM_") or self.kind != "args":
            found = said
        else:
            found = said if said in self.named else None
        return None if found in (None, own) else found


def notice_successor(name: str, flags: list[str], notices: list, names: Names, files: set | None = None,
                     lifetime: int = -1) -> str | None:
    """The successor the newest deprecation notice about `name` (or one of its flags) gives: the
    name the notice's own parse found, when the name's own part of the notice says it, else a name
    of the same kind that part says to use. `lifetime`: the releases that have the name (a mask);
    a notice printed neither while it lived nor in the release it went is about another thing of
    that name (0.10's "The 'task' option has been deprecated" is not about 0.19's PoolerConfig.task)."""
    wanted = {name, name.lstrip("-").replace("-", "_"), *flags}
    window = lifetime | lifetime << 1
    found = []
    for rels, subjects, replacement, text, where in notices:
        if files is not None and not any(w in files for w in where[1::3]):
            continue
        if not rels & window:
            continue
        if any(s in wanted or s.lstrip("-").replace("-", "_") in wanted or s.split(".")[-1] in wanted
               for s in subjects):
            found.append((rels.bit_length(), replacement or "", text))
    for _, replacement, text in sorted(found, reverse=True):
        part = own_part(text, wanted)
        if part is None:
            continue
        said = replacement.split("(")[0].rstrip(".")
        got = names.read(replacement, name) if replacement and said in part else _said(part, name, names)
        if got:
            return got
    return None


def _mentions(sentence: str, wanted: set[str]) -> bool:
    """Whether a sentence names the name itself; a flag followed by a value in one code span
    (`--convert mm_encoder_only`) names that value."""
    for form in wanted:
        for m in re.finditer(rf"(?<![\w-]){re.escape(form)}(?![\w-])", sentence):
            if not re.match(r"\s+[\w.-]+`", sentence[m.end():]) or sentence[m.start() - 1: m.start()] != "`":
                return True
    return False


def own_part(text: str, wanted: set[str]) -> str | None:
    """The sentences of a notice about the name: from the first that names it, up to one that says
    another name is deprecated or gone. None when the notice names it only with a value."""
    sentences = _SENTENCE.split(" ".join(text.split()))
    first = next((i for i, s in enumerate(sentences) if _mentions(s, wanted)), None)
    if first is None:
        if any(re.search(rf"`{re.escape(f)}\s+[\w.-]+`", text) for f in wanted):
            return None
        return " ".join(sentences)        # the notice's parse found the name another way
    kept = [sentences[first]]
    for s in sentences[first + 1:]:
        if NOTICE.search(s) and not _mentions(s, wanted) and any(n not in wanted for n in names_in(s)):
            break
        kept.append(s)
    return " ".join(kept)


def _said(text: str, name: str, names: Names) -> str | None:
    """A name of the kind a deprecation sentence says to use instead ("... Please use mode."), or
    points to ("Deprecated, see profiler_config."); an environment variable's may be an engine
    argument."""
    text = " ".join(text.split())
    notice = NOTICE.search(text)
    if not notice:
        return None
    found = [*REPLACEMENT.finditer(text, notice.start(), notice.end() + NOTICE_REACH),
             *_SEE.finditer(text, notice.start(), notice.end() + NOTICE_REACH)]
    for rep in sorted(found, key=lambda m: m.start()):
        said = rep.group(1).split("(")[0].rstrip(".")
        got = names.read(said, name)
        if got and (got in names.named or said.startswith("-") and names.kind == "args"
                    or names.kind == "envs" and got.split(".")[0] in names.args):
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


def _named_field(successor: str, env: str, args: dict, classes: dict) -> str:
    """An environment variable's successor that is a whole config argument ("Deprecated, see
    profiler_config."), narrowed to the field of that config named after the variable
    (VLLM_TORCH_PROFILER_DIR → profiler_config.torch_profiler_dir), when there is one."""
    if "." in successor or successor not in args:
        return successor
    field = env.lower().removeprefix("vllm_")
    taken = {t for _, rec in args[successor]
             for t in re.findall(r"\b[A-Z]\w*Config\b", f"{rec.get('type', '')} {rec.get('factory', '')}")}
    return f"{successor}.{field}" if any(field in classes.get(t, {}) for t in taken) else successor


def renamed_class(args: dict[str, list[tuple[int, dict]]], classes: dict[str, dict[str, list[tuple[int, dict]]]],
                  n_releases: int) -> dict[str, list[str]]:
    """{argument: [successor, why]} for an argument that set field f of config class C until
    release R, when C is gone in R and a class new in R has f and most of C's fields (C's new
    name): the argument that sets the new class's f in R, else the argument that takes the new
    class, with the field (`structured_outputs_config.backend`)."""
    fields_at: dict[str, dict[int, set[str]]] = {}
    for cname, fields in classes.items():
        for field, per_release in fields.items():
            for ri, _ in per_release:
                fields_at.setdefault(cname, {}).setdefault(ri, set()).add(field)
    out: dict[str, list[str]] = {}
    for name, per_release in args.items():
        configured = [(ri, rec["config"]) for ri, rec in per_release if rec.get("config")]
        if not configured:
            continue
        last, (old_cls, field) = max(configured, key=lambda x: x[0])
        r = last + 1
        at_r = next((rec for ri, rec in per_release if ri == r), None)
        if r >= n_releases or r in fields_at.get(old_cls, {}) or (at_r and at_r.get("config")):
            continue
        old_fields = fields_at.get(old_cls, {}).get(last, set())
        new = [c for c, by_ri in fields_at.items() if min(by_ri) == r and field in by_ri[r]
               and len(old_fields & by_ri[r]) >= RENAMED_CLASS_OVERLAP * len(old_fields)]
        # an engine argument's config: one an argument sets a field of, or takes whole (a request
        # class such as StructuredOutputsParams, new beside it with the same fields, is not)
        found = []
        for cls in new:
            setter = sorted(a for a, per in args.items() for ri, rec in per if ri == r and rec.get("config") == [cls, field])
            taker = sorted(a for a, per in args.items() for ri, rec in per if ri == r and re.search(
                rf"\b{cls}\b", f"{rec.get('type', '')} {rec.get('factory', '')}"))
            if setter:
                found.append(setter[0])
            elif len(taker) == 1:
                found.append(f"{taker[0]}.{field}")
        if len(found) == 1:
            out[name] = [found[0], "field of the renamed config class"]
    return out


def find(named: dict[str, list[tuple[int, dict]]], names: Names, notices: list, n_releases: int,
         text_key: str, notice_files: set | None = None,
         classes: dict[str, dict[str, list[tuple[int, dict]]]] | None = None) -> dict[str, list[str]]:
    """{name: [successor, why]} for every name of one kind that has one (`classes`: for engine
    arguments, every config class's fields, to follow a class vLLM renamed)."""
    out: dict[str, list[str]] = {}
    for name, per_release in named.items():
        flags = sorted({f for _, rec in per_release for f in [rec.get("flag"), *(rec.get("aliases") or [])] if f})
        lifetime = 0
        for ri, _ in per_release:
            lifetime |= 1 << ri
        got = notice_successor(name, flags, notices, names, notice_files, lifetime)
        if got:
            out[name] = [got, "deprecation notice"]
            continue
        got = help_successor(name, per_release, text_key, names)
        if got:
            out[name] = [got, f"deprecation in its {text_key}"]
    if classes is not None and names.kind == "envs":
        for name, found in out.items():
            found[0] = _named_field(found[0], name, names.args, classes)
    if classes is not None and names.kind == "args":
        for name, found in renamed_class(named, classes, n_releases).items():
            out.setdefault(name, found)
    for name, found in same_as_newcomer(named, n_releases, text_key).items():
        out.setdefault(name, found)
    return out


def find_all(args: dict, envs: dict, classes: dict, class_files: dict, notices: list, n_releases: int) -> dict:
    """The successors block of the index: {"args": {...}, "envs": {...}, "classes": {class: {...}}}.
    `class_files`: per config class, the ids of the files its fields live in (a class's notices are
    the ones in those files)."""
    class_successors = {}
    for cname, fields in classes.items():
        found = find(fields, Names("fields", fields, args, cname), notices, n_releases, "doc", class_files[cname])
        if found:
            class_successors[cname] = found
    return {"args": find(args, Names("args", args), notices, n_releases, "help", classes=classes),
            "envs": find(envs, Names("envs", envs, args), notices, n_releases, "doc", classes=classes),
            "classes": class_successors}
