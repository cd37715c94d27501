"""The orchestration of a diagnosis: read the log, ask each knowledge source for candidates, rank
them, answer the best.

    text → reading (logtext, tracebacks, facts)
         → knowledge: the rule book's candidates; for a paste no hand-written rule answers, vLLM's
           releases' and the stack index's (family answers)
         → answering: rank, see past a wrapper, fill the texts with the log's values, keep the
           advice true for the log's release → Report
"""

from __future__ import annotations

import functools
import re

from bot.base.lazyre import LazyRe
from bot.base.nearest import nearest
from bot.base.versions import in_range
from bot.diagnose.answering import advice
from bot.diagnose.answering.crash_site import crash_site
from bot.diagnose.answering.rank import Matched, an_exit as _an_exit, cover_wrappers, rank
from bot.diagnose.answering.report import Diagnosis, Report, RootError, fill, program_name, text
from bot.diagnose.knowledge import Candidate, rulebook, stack, vllm
from bot.diagnose.knowledge.rulebook import RuleBook, load_rulebook
from bot.diagnose.reading import facts as _facts
from bot.diagnose.reading import logtext, tracebacks

ANSWER_THRESHOLD = 0.6
# the most an answer to an exception CPython ignored can be (a destructor's at shutdown): shown, never "diagnosed"
IGNORED_CONFIDENCE = 0.55
_BOOK: RuleBook | None = None


def _default_book() -> RuleBook:
    global _BOOK
    if _BOOK is None:
        _BOOK = load_rulebook()
    return _BOOK


def _caveats(c: Candidate, facts: dict, lang: str) -> list[str]:
    rule = c.rule
    version = facts.get("vllm_version")
    out = []
    if rule.versions and version:
        if not in_range(version, rule.versions):
            out.append(text("outside_versions", lang, versions=rule.versions, vllm_version=version))
    return out


def _values(c: Candidate, facts: dict, lang: str, paste: str) -> dict:
    flat = lambda d: {k: v for k, v in d.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    values = flat(facts.get("engine_args") or {})      # the user's own settings, e.g. {max_model_len}
    values.update(flat(facts))
    # WSL2 changes whose driver a fix names (the Windows one, seen through /usr/lib/wsl/lib): any rule's
    # text may keep a paragraph for it with {?wsl_host}
    if facts.get("os_hint") == "wsl":
        values["wsl_host"] = "WSL2"
    # the RL framework that hosts vLLM in the paste: a rule's text may keep a paragraph for its own settings
    # with {?rl_verl} / {?rl_openrlhf}
    if facts.get("rl_trainer"):
        values["rl_" + facts["rl_trainer"].lower()] = facts["rl_trainer"]
    values.update(c.captures)
    # the run's hf_overrides: the model's config.json values a check read may be the user's own (any rule's text
    # may keep a paragraph for it with {?hf_overrides_set})
    values.update({k: v.get(lang) or v["en"] if isinstance(v, advice.Words) else v
                   for k, v in advice.hf_overrides_values(c.captures, facts).items()})
    values.update(vllm.describe(c, values, facts, lang))     # a family answer's text, or names' history
    values.update(stack.describe(c, values, facts, lang))    # a stack family answer's text
    # Derivers also see the whole matched message, for numbers no capture holds, and can ask for the frame that
    # raised it (read only when asked: it costs a pass over a long paste).
    raised_in = functools.partial(tracebacks.raising_frame, paste, c.message.line_no)
    # ... and for the memory numbers the run that raised it printed (read only when asked, as above)
    memory_profile = functools.partial(_memory_profile, paste, c.message.line_no)
    # ... and for the code lines of the traceback above it (what a frame passed to the failing call)
    frame_sources = functools.partial(tracebacks.frame_sources, paste, c.message.line_no)
    # ... and for where a native crash struck, which a crash report the message opens names (crash_site.py)
    m = c.message
    crashed_in = functools.partial(crash_site, paste, RootError(m.text[:500], m.line_no, m.exc_type, m.proc), lang, facts)
    values.update(advice.derive(c.rule.id, {**values, "matched_text": c.message.text, "raised_in": raised_in,
                                            "memory_profile": memory_profile, "frame_sources": frame_sources,
                                            "crashed_in": crashed_in},
                                facts, lang))
    return values


def _memory_profile(paste: str, line_no: int):
    # imported here: its reader is needed by one rule, and an import at the top cost every cold start 2 ms
    from bot.diagnose.reading import memory
    return memory.profile(paste, line_no)


_FOR_THIS_LOG = LazyRe(r"^(?:For this log|对这份日志)[:：].*$", re.M)
_AS_FLAG = LazyRe(r"`--([a-z][a-z0-9-]*) ([^`\s]+)`")
_AS_KWARG = LazyRe(r"`([a-z][a-z0-9_]*)=([^`\s]+)`")


def _kwarg(m) -> str:
    name, value = m.group(1).replace("-", "_"), m.group(2)
    plain = re.fullmatch(r"-?\d+(?:\.\d+)?|True|False|None|[{\[\"'].*", value)
    return f"`{name}={value if plain else repr(value).replace(chr(39), chr(34))}`"


def _own_form(fix: str, invocation: str | None) -> str:
    """A fix's "For this log:" line with the settings in the form the user's log used: the `LLM()` keyword for an
    offline script (`max_model_len=2048`), the flag for a server (`--max-model-len 2048`). The rule book writes one
    form per line; the numbers are the log's own either way."""
    if invocation not in ("llm", "serve"):
        return fix

    def line(m) -> str:
        if invocation == "llm":
            return _AS_FLAG.sub(_kwarg, m.group(0))
        return _AS_KWARG.sub(lambda k: f"`--{k.group(1).replace('_', '-')} {k.group(2).strip(chr(34) + chr(39))}`",
                             m.group(0))
    return _FOR_THIS_LOG.sub(line, fix)


def _fix(rule, values: dict, facts: dict, lang: str) -> tuple[str, dict, str, list[str]]:
    """The rule's fix text, then the user's own call with the fix applied, ready to paste; and
    caveats for what the log's release lacks (left out of the call, release_true.py)."""
    suggest = dict(values["suggest"]) if "suggest" in values else dict(rule.fix_settings)
    # The setting that just failed is no fix (a static fix_settings of 0.6 for a run at 0.6).
    own = {**(facts.get("engine_args") or {}), **(facts.get("user_args") or {})}
    suggest = {k: v for k, v in suggest.items() if k not in own or str(own[k]) != str(v)}
    env, call_facts, notes = rule.fix_env, facts, []
    if facts.get("vllm_version"):
        from bot.diagnose.answering import release_true
        suggest, env, call_facts, notes = release_true.settings(rule, suggest, env, facts, lang)
    command = advice.ready_to_paste(suggest, env, call_facts, facts.get("invocation"))
    fix = _own_form(fill(rule.fix[lang], values, lang), facts.get("invocation"))
    if facts.get("vllm_version"):
        notes += [n for n in release_true.text_notes(rule, fix, facts, lang, set(suggest) | set(env)) if n not in notes]
    if command:
        fix += f"\n\n{text('ready_to_paste', lang)}\n```\n{command}\n```"
    return fix, suggest, command, notes


def _to_diagnosis(c: Candidate, facts: dict, lang: str, paste: str, ignored=()) -> Diagnosis:
    rule, values = c.rule, _values(c, facts, lang, paste)
    caveats = _caveats(c, facts, lang)
    confidence = c.confidence * (0.9 if caveats else 1.0)
    if _within(c.message.line_no, ignored):
        # an exception CPython ignored (a destructor's at shutdown) and no other error: the real one may be cut off
        confidence = min(confidence, IGNORED_CONFIDENCE)
    fix, suggest, command, notes = _fix(rule, values, facts, lang)
    caveats += notes
    caveats += _misspelt_env(fill(rule.cause[lang], values, lang) + fix, facts, lang)
    if c.matched_by == "environment":
        # no error line of the paste names it: the versions it shows are what the answer rests on
        caveats.insert(0, text("from_environment", lang))
    if rule.everyones and not facts.get("vllm_context"):
        # Not a doubt about the error, which means the same in any program (so no lower confidence):
        # a word on what the paste shows, so the vLLM settings in the fix are read for what they are.
        caveats.append(text("no_vllm_shown", lang))
    return Diagnosis(
        rule_id=rule.id, confidence=round(confidence, 3), level=rule.level, status=rule.status,
        title=fill(rule.title[lang], values, lang), cause=fill(rule.cause[lang], values, lang),
        fix=fix, caveats=caveats, evidence=c.message.text[:500],
        line_no=c.message.line_no, captures=c.captures, repro=rule.repro,
        fix_settings=rule.fix_settings, fix_env=rule.fix_env, verified=rule.verified,
        versions=rule.versions, matched_by=c.matched_by, suggested=suggest, command=command,
        vllm_source=vllm.site(c, facts),
    )


_ENV_NAMED = LazyRe(r"\bVLLM_[A-Z0-9_]*[A-Z0-9]")


def _misspelt_env(answer: str, facts: dict, lang: str) -> list[str]:
    """A `VLLM_*` variable the answer names that the log's own warning shows was set under another spelling
    (`VLLM_ALLOW_LONG_MAX_MODEL_LENGTH=1` for `VLLM_ALLOW_LONG_MAX_MODEL_LEN`): vLLM ignored it, so the
    answer's advice to set the variable reads as already done unless the spelling is pointed out."""
    unknown = facts.get("unknown_vllm_env") or []
    if not unknown:
        return []
    out = []
    for meant in dict.fromkeys(_ENV_NAMED.findall(answer)):
        given = nearest(meant, [u for u in unknown if u != meant])
        if given:
            out.append(text("env_misspelt", lang, given=given, meant=meant))
    return out


def _within(line_no: int, spans) -> bool:
    return any(a <= line_no <= b for a, b in spans)


def _past_ignored(errors: list[tracebacks.Message], spans) -> list[tracebacks.Message]:
    """The messages without those of an exception CPython ignored ("Exception ignored in: <function X.__del__ ...>", its
    traceback and exception): Python printed it and went on, most often at shutdown from a half torn-down object, so
    it is no root while the paste shows any other error. Alone, they are all the paste shows (a weak answer then)."""
    rest = [m for m in errors if not _within(m.line_no, spans)]
    if any(m.is_error and m.level not in ("INFO", "WARNING", "DEBUG") and not m.py_warning and not _an_exit(m)
           for m in rest):
        return rest
    return errors


def _root(errors: list[tracebacks.Message], best: Diagnosis | None,
          cause: tracebacks.Message | None) -> RootError | None:
    """The first real error: the one a rule answers, or the one a wrapper points to; else in a failed build the
    compiler's own error; else an exception line (or the real message a wrapper quotes), else the first ERROR record or
    line native code printed as it died, else a bare line that reads like an error (the last frame of a traceback the
    paste ends in, cut before its exception, is one; a sentence the person wrote comes last). Warnings are never the
    root, nor an exit (a bare SystemExit, a KeyboardInterrupt)."""
    if cause is not None:
        return RootError(cause.text[:500], cause.line_no, cause.exc_type, cause.proc)
    if best is not None and best.level != "wrapper":
        msg = next((m for m in errors if m.line_no == best.line_no), None)
        return RootError(best.evidence, best.line_no, msg.exc_type if msg else None, msg.proc if msg else None)
    errors = [m for m in errors if not _an_exit(m)]
    # a package's build that failed: the compiler's own error, above pip's closing "Failed building wheel"
    built = tracebacks.build_root(errors)
    if built is not None:
        return RootError(built.text[:500], built.line_no, built.exc_type, built.proc)
    # (a line native code printed as it died, a segfault's report: UCX's "Caught signal 11", CPython's "Fatal Python
    # error", ranks with the ERROR records: the record of the death that follows it, "EngineCore failed to start.", is
    # not the first error)
    tiers = (lambda m: (m.exc_type or m.inner) and m.level not in ("WARNING", "DEBUG"),
             lambda m: m.native or (m.level in ("ERROR", "CRITICAL") and not tracebacks.is_input_dump(m)),
             lambda m: m.is_error and m.level is None and not m.py_warning and not _person_says(m.text),
             lambda m: m.is_error and m.level is None and not m.py_warning)
    for tier in tiers:
        first = next((m for m in errors if tier(m)), None)
        if first is not None:
            return RootError(first.text[:500], first.line_no, first.exc_type, first.proc)
    return None


# A sentence the person wrote above what they pasted ("Hi, I'm getting the following error with vllm 0.3.2"): it reads
# like an error, and is no line of the log; the first error is what follows it (a traceback cut before its exception:
# its last frame), and the sentence only where nothing else is.
# (not "We ...", "Please ...": programs print those too, transformers' "We couldn't connect to ...")
_PERSON_SAYS = LazyRe(r"(?i)(?:hi|hello|hey|dear|thanks|i|i'm|i\u2019m|im|i've|i'd|my|when i|after i|while i|so i)[ ,]")
# (the sentence that quotes the message after a colon, "I always get this error: Could not find ...", holds it)
_QUOTES_ERROR = LazyRe(r"(?i)\b(?:error|exception)\s*:\s*\S")


def _person_says(text: str) -> bool:
    return _PERSON_SAYS.match(text) is not None and _QUOTES_ERROR.search(text) is None


def not_vllm(f: dict) -> str | None:
    """The other program that printed this log, when nothing shows vLLM printed it."""
    if not f.get("foreign_context") or f.get("vllm_printed"):
        return None
    if f.get("vllm_context") and not f.get("foreign_strict"):
        return None                    # e.g. LiteLLM relaying a VLLMException: still vLLM's error
    return f["foreign_context"]


def _match(book: RuleBook, errors: list, tail: list, text: str, facts: dict) -> Matched:
    """Every source's candidates, best first. vLLM's releases and the stack beneath vLLM are asked
    only for a paste no hand-written rule answers: a paste a rule answers never loads their indexes,
    nor even the modules that read them. Each gives at most its first known error; ranked by
    position, the FIRST real error wins across sources (an OS error above a vLLM message)."""
    # a warning the log shows resolved (the run went on and finished) is no answer
    cands = [c for c in rulebook.candidates(book, errors, tail, facts) if not c.rule.cleared(text, c.message.text)]
    strong = rulebook.strong_messages(errors)
    if not rulebook.answers(cands):
        if book.families:
            family = vllm.candidates(book, rank(cands), strong, text, facts)
            cands += _in_vllms_words(book, family, facts) or family
        if book.stack_families:
            cands += stack.candidates(book, rank(cands), strong, text, facts)
        if not rulebook.answers(cands) and not _unexplained(strong):
            # no error line is answered: the versions the paste shows may not work together at all
            cands += stack.environment_candidates(book, facts, text)
    elif book.stack_families and stack.root_above(book, cands, strong, facts):
        # only a consequence of CUDA failing to start answers: the code above it may be the root
        cands += stack.candidates(book, rank(cands), strong, text, facts)
    elif book.stack_families and stack.xid_shown(strong):
        # the GPU or its driver failing (the NVIDIA driver's Xid line beside the log) is the root of the error a rule answers
        cands += stack.xid_candidates(book, strong, facts)
    found = cover_wrappers(rank(cands), rulebook.wrappers(book, facts), strong, rulebook.holds_for(facts), text)
    if found.cause is None and facts.get("has_traceback") and found.candidates and not rulebook.answers(found.candidates):
        return _only_wrapped(book, found, errors, tail, text, facts)
    return found


def _in_vllms_words(book: RuleBook, family: list, facts: dict) -> list:
    """The hand-written rules for a line in vLLM's own words, where nothing else in the paste shows vLLM (a bare
    line): vLLM's index found the message among vLLM's raise sites, which shows vLLM as well as a log line would,
    so the rules that ask for vLLM's context may answer it, more precisely than the index's family."""
    if facts.get("vllm_context") or not family or family[0].source.by != "template" \
            or family[0].confidence < ANSWER_THRESHOLD:
        return []
    line = family[0].message
    own = [c for c in rulebook.candidates(book, [line], [], {**facts, "vllm_context": True})
           if c.rule.status == "active" and c.message is line]
    for c in own:
        c.position = family[0].position
    return own


def _unexplained(strong: list) -> bool:
    """Whether the paste raises an exception no source answers that is not CUDA's (or NVML's) own failing: an error of
    its own, which the versions the paste shows do not explain."""
    return any((m.exc_type or m.inner) and m.level not in ("WARNING", "DEBUG") and not m.py_warning
               and not _an_exit(m) and not stack.names_cuda(m.text) for m in strong)


def _only_wrapped(book: RuleBook, found: Matched, errors: list, tail: list, text: str, facts: dict) -> Matched:
    """The only traceback is a wrapper's ("Engine core initialization failed. See root cause above"), and
    the error it points to is left out of the paste: that traceback shows no cause, so a message that
    answers a paste without one (torch's warning that it has no kernels for the GPU, `has_traceback:
    false`) is the cause the paste does show."""
    if not _wrappers_only(book, errors, facts):
        return found
    alone = {**facts, "has_traceback": False}
    known = {c.rule.id for c in found.candidates}
    more = [c for c in rulebook.candidates(book, errors, tail, alone)
            if c.rule.id not in known and not c.rule.cleared(text, c.message.text)]
    if not rulebook.answers(more):
        return found
    return Matched(rank(found.candidates + more))


def _wrappers_only(book: RuleBook, errors: list, facts: dict) -> bool:
    """Whether every exception the paste raises is a wrapper's ("the real error is above"): an exception no wrapper
    rule knows (a KeyError of the user's own server) is a cause the paste shows, answered or not."""
    holds = rulebook.holds_for(facts)
    pointers = [r for r in rulebook.wrappers(book, facts) if r.level == "wrapper"]
    raised = [m for m in errors if m.exc_type and not m.py_warning]
    return bool(raised) and all(any(r.search(m.text, holds) is not None for r in pointers) for m in raised)


def diagnose(data: str | bytes, lang: str = "en", *, book: RuleBook | None = None) -> Report:
    lang = lang if lang in ("en", "zh") else "en"
    book = book or _default_book()
    clean = logtext.clean(data, lang)
    errors = tracebacks.messages(clean.text)
    tracebacks.mark_handled(clean.text, errors)
    found_facts = _facts.extract(clean.text, "\n".join(m.text for m in errors[:500]))
    found_facts["tokenizer_attr_versioned"] = stack.tokenizer_attr_versioned((m.text for m in errors), book)
    # what a run printed after someone stopped it with a signal is its teardown's, neither an answer nor its first error
    stopped = _facts.stopped_spans(clean.text)
    errors = [m for m in errors if not any(a < m.line_no < b for a, b in stopped)]
    # nor is an exception vLLM logged under a heading after which it went on (a cache it could not write)
    errors = tracebacks.past_went_on(clean.text, errors)
    # what CPython printed for an exception it ignored (a destructor's, at shutdown) is noise beside any other error
    ignored = tracebacks.ignored_spans(clean.text)
    tail = tracebacks.tail(clean.text)
    if ignored:
        kept = _past_ignored(errors, ignored)
        if len(kept) < len(errors):
            errors, tail = kept, [m for m in tail if not _within(m.line_no, ignored)]
    # Another program's log: the same torch / Hugging Face / socket text means something else
    # there, and a wrong answer costs more than none, so it is not matched at all.
    foreign = not_vllm(found_facts)
    found = Matched([]) if foreign else _match(book, errors, tail, clean.text, found_facts)
    cands = found.candidates
    shown = [c for c in cands if c.rule.status == "active"]
    if any(c.rule.level != "wrapper" for c in shown):
        # A wrapper adds nothing once a real cause is found, unless it explains that very cause
        # (`supersedes`: e.g. an architecture that failed to be inspected is not "unsupported").
        present = {c.rule.id for c in shown}
        shown = [c for c in shown if c.rule.level != "wrapper" or present & set(c.rule.supersedes)]
    diagnoses = [_to_diagnosis(c, found_facts, lang, clean.text, ignored) for c in shown]
    shadow = [_to_diagnosis(c, found_facts, lang, clean.text, ignored) for c in cands if c.rule.status == "shadow"]
    diagnoses = [d for d in diagnoses if d.confidence >= 0.5]

    best = diagnoses[0] if diagnoses else None
    root = _root(errors, best, found.cause)
    cut = next((m for m in errors if m.cut), None)
    if best and best.level != "wrapper" and best.confidence >= ANSWER_THRESHOLD:
        verdict, next_step = "diagnosed", ""
    elif found.cause is not None:
        # A wrapper pointed above, and the error it points to is in the paste: no rule knows it,
        # so it is quoted rather than the wrapper answered.
        verdict = "unsure"
        next_step = text("unsure", lang, line_no=clean.paste_line(root.line_no), root=root.text[:300])
    elif best and best.level == "wrapper":
        verdict, next_step = "wrapper_only", text("wrapper_only", lang)
    elif foreign and root is not None:
        verdict, next_step = "unsure", text("not_vllm", lang, program=program_name(foreign, lang))
    elif root is not None and cut is not None and cut.line_no == root.line_no:
        # the paste ends inside a traceback, and nothing above it reads like an error: its exception is what is missing
        verdict = "unsure"
        next_step = text("cut_traceback", lang, line_no=clean.paste_line(root.line_no), root=root.text[:300])
    elif root is not None:
        verdict = "unsure"
        next_step = text("unsure", lang, line_no=clean.paste_line(root.line_no), root=root.text[:300])
        crash = crash_site(clean.text, root, lang, found_facts)
        if crash:
            next_step = f"{next_step}\n\n{crash}"
        elif cut is not None:
            next_step = f"{next_step}\n\n{text('cut_below', lang, line_no=clean.paste_line(cut.line_no))}"
    else:
        verdict, next_step = "no_error", text("no_error", lang)
    if verdict == "unsure" and root is not None and _within(root.line_no, ignored):
        next_step = f"{next_step}\n\n{text('root_ignored', lang)}"
    # the lines as the paste numbers them (a progress bar's carriage returns split lines only for the reading)
    if clean.cr_lines:
        for d in (*diagnoses, *shadow):
            d.line_no = clean.paste_line(d.line_no)
        if root is not None:
            root = RootError(root.text, clean.paste_line(root.line_no), root.exc_type, root.proc)
    return Report(diagnoses, shadow, found_facts, root, verdict, next_step, clean.notes, book.version, lang)
