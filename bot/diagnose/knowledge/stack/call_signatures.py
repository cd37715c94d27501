"""A call across two packages that no longer fit: `TypeError: layer_type_validation() takes 1 positional
argument but 2 were given`, `... got an unexpected keyword argument 'y'`, `... missing 1 required positional
argument: 'z'`, raised where vLLM calls transformers (or huggingface_hub, tokenizers, torch, triton), where one
of those calls another beneath vLLM, or where a framework (verl, TRL, OpenRLHF, ...) calls vLLM's API.

Python raises a signature error at the call itself, before the callee runs: the innermost frame printed above
it is the CALLER's code; the callee is only named in the message (by its qualified name from Python 3.10 on:
`PreTrainedConfig.get_text_config()`). Both must be told, or there is no answer:

- the caller: the package of the innermost frame (the folder below site-packages, or a known package's folder
  in a source checkout); a user's own script is no package (its own mistake as likely as drift);
- the callee: the one package whose own source the stack index saw define that function (its raise sites'
  functions: transformers' `layer_type_validation`, huggingface_hub's `hf_hub_download`), a transformers base
  class or a tokenizer/processor class a model's module exports (attribute_names.family_of), or vLLM's public
  API (the classes `vllm/__init__.py` exports). A name two packages define, a re-exported name (transformers
  imports flash-attn's functions), a lambda, a local function or a model's own class tells no package; a config
  class is left to transformers-version-mismatch, and a keyword the paste's own settings name is the user's.

Caller and callee must be two packages, one of them vLLM, or two of the stack vLLM pins: then the releases
of the two are out of step, and the fix is the range the log's vLLM pins (or the framework's own
requirement of vLLM, where pip printed it).
"""

from __future__ import annotations

import re

from bot.base import regex_cache
from bot.base.lazyre import LazyRe
from bot.base.versions import in_range
from bot.diagnose.reading.facts.traceback_frames import site_package

from .stack_index import vkey

# Python's wordings of a call that does not fit the callee's signature (ceval.c / getargs.c). A method's name
# is qualified from Python 3.10 on; `<locals>` and `<lambda>` name code of no package. WORDINGS (no groups, any
# callee) is for other matchers that only tell such a message from a package's own (stack_families.py).
_COMPLAINT = (r"(?:got an unexpected keyword argument '(?P<kwarg>\w+)'|"
              r"missing (?P<missing_n>\d+) required (?:positional|keyword-only) arguments?: (?P<missing>.+)|"
              r"takes (?:from )?(?P<takes>\d+)(?: to (?P<takes_max>\d+))? positional arguments? but (?P<given>\d+) "
              r"(?:positional arguments? \(and \d+ keyword-only arguments?\) )?(?:was|were) given|"
              r"got multiple values for argument '(?P<twice>\w+)'|"
              r"got some positional-only arguments passed as keyword arguments: '(?P<posonly>[\w, ]+)')")
SIGNATURE = r"(?P<callee>[A-Za-z_][\w.]*)\(\) " + _COMPLAINT
WORDINGS = r"[\w.<>]+\(\) " + regex_cache.compile(r"\(\?P<\w+>").sub("(?:", _COMPLAINT)
_MESSAGE = LazyRe(SIGNATURE + r"\.?$")
# the exception's class, and the address of the actor Xinference relays the error from
_PREFIX = LazyRe(r"^(?:TypeError: )?(?:\[address=[^\]]{1,200}\]\s*)?")

# vLLM's public API (vllm/__init__.py's exports that frameworks construct or call), by class name
VLLM_API = frozenset({"LLM", "LLMEngine", "AsyncLLMEngine", "AsyncLLM", "EngineArgs", "AsyncEngineArgs", "SamplingParams",
                      "PoolingParams", "BeamSearchParams", "LoRARequest", "GuidedDecodingParams",
                      "StructuredOutputsParams"})
# The stack beneath vLLM whose raise sites the index holds, and the frameworks that call vLLM: an import
# name → its distribution (pip's name for the fix).
STACK = {"transformers": "transformers", "huggingface_hub": "huggingface-hub", "tokenizers": "tokenizers",
         "torch": "torch", "triton": "triton"}
FRAMEWORKS = {"verl": "verl", "trl": "trl", "openrlhf": "openrlhf", "llamafactory": "llamafactory",
              "xinference": "xinference", "swift": "ms-swift", "lmformatenforcer": "lm-format-enforcer",
              "outlines": "outlines", "nemo_rl": "nemo-rl", "skyrl_train": "skyrl-train", "areal": "areal",
              "roll": "roll", "lighteval": "lighteval", "lm_eval": "lm-eval"}
# The frameworks whose package ships a `[vllm]` extra that requires vLLM (Provides-Extra in their wheels' METADATA,
# read 2026-12: trl 1.16.0, verl 0.9.1, openrlhf 0.11.2, lighteval 0.13.0, lm-eval 0.4.13, xinference 4.1.0).
# None in lm-format-enforcer 0.11.3, llamafactory 0.9.5, ms-swift 4.6.0, areal 1.0.4; outlines 1.3.3's `[vllm]` installs
# the openai client, not vLLM. `pip install "X[vllm]"` for any other only warns that X has no such extra.
VLLM_EXTRA = frozenset({"trl", "verl", "openrlhf", "lighteval", "lm-eval", "xinference"})
_KNOWN_FOLDER = LazyRe(r"/(?P<pkg>%s)/(?=[\w/]+\.py$)" % "|".join(["vllm", *STACK, *FRAMEWORKS]))
_SHOWN = {"vllm": "vLLM"}
_FRAME_LINE = LazyRe(r'File "(?P<path>[^"\n]+)", line \d+, in ')
# transformers' families whose classes are told by a model module's exports: vLLM defines configs and models
# of the same names (its vendored configs, its own model classes), never tokenizers or processors
_BY_MODULE = ("tokenizer", "processor")


def read(text: str) -> dict | None:
    """{callee, cls, method, kind, arg, ...} of a signature error's message; None for any other."""
    found = _MESSAGE.match(_PREFIX.sub("", " ".join(text.split()), count=1))
    if not found or "<" in found.group("callee"):
        return None
    callee = found.group("callee")
    cls, _, method = callee.rpartition(".")
    out = {"callee": callee, "cls": cls or None, "method": method}
    if found.group("kwarg"):
        out.update(kind="kwarg", arg=found.group("kwarg"))
    elif found.group("missing"):
        out.update(kind="missing", arg=found.group("missing").strip(), count=found.group("missing_n"))
    elif found.group("takes"):
        out.update(kind="positional", takes=found.group("takes"), takes_max=found.group("takes_max"),
                   given=found.group("given"))
    elif found.group("twice"):
        out.update(kind="twice", arg=found.group("twice"))
    else:
        out.update(kind="posonly", arg=found.group("posonly"))
    return out


def caller_package(path: str | None) -> str | None:
    """The package of the caller's frame: the folder below site-packages, else (a source checkout,
    /workspace/verl/verl/workers/...) the last folder named for vLLM, the stack or a framework; None for a
    user's own script."""
    if not path:
        return None
    path = path.replace("\\", "/")
    installed = site_package(path)
    if installed:
        return installed
    known = list(_KNOWN_FOLDER.finditer(path))
    return known[-1].group("pkg") if known else None


def callee_package(ix, call: dict) -> str | None:
    """The package that defines the callee, where only one can: its function among one package's raise
    sites (qualified as Python names it), vLLM's API, or a transformers class by its base classes or a model
    module's tokenizer or processor."""
    from .attribute_names import family_of
    cls = call["cls"].split(".")[0] if call["cls"] else None
    family = family_of(ix, cls, None) if cls else None
    # a config class's signature is transformers-version-mismatch's (its config wordings, transformers 5's stricter
    # configs) or a model's config.json's: not told here
    if family == "config":
        return None
    owners = ix.function_packages(call["callee"])
    if len(owners) == 1:
        return owners[0]
    if owners or not cls:
        return None
    if cls in VLLM_API:
        return "vllm"
    if family is not None and (cls in ix.attribute_roots(family) or family in _BY_MODULE):
        return "transformers"
    return None


def users_keyword(call: dict, text: str, line_no: int) -> bool:
    """Whether the keyword the callee refused is one the paste's own settings name (`mm_processor_kwargs`,
    `tokenizer_kwargs`, `chat_template_kwargs`, an engine argument) on a line other than the error's: vLLM
    passed the user's setting on, which is no drift to fix with versions."""
    kw = call.get("arg") if call["kind"] == "kwarg" else None
    if not kw:
        return False
    key = regex_cache.compile(r"""['"]%s['"]\s*:|--%s\b""" % (re.escape(kw), re.escape(kw.replace("_", "-"))))
    argument = regex_cache.compile(r"(?<![\w.])%s\s*=(?!=)" % re.escape(kw))
    lines = text.split("\n")
    return any(key.search(region) or is_call and argument.search(region)
               for region, is_call in _settings(lines, line_no))


# Where a paste shows the user's own settings: vLLM's `non-default args: {...}` line, a command line's flags (and
# the JSON they pass), an `LLM(...)`/`EngineArgs(...)` call's arguments. Never vLLM's config dump (`Initializing a
# V1 LLM engine ... with config: model=..., revision=None, seed=0, ...` names every field, set or not) nor the
# source a traceback prints under a package's frame (that package's code).
_NON_DEFAULT = LazyRe(r"non-default args: (\{.*)")
_CONFIG_DUMP = "with config: "
_FLAG = LazyRe(r"(?:^|\s)--[A-Za-z]")
_ENGINE_CALL = LazyRe(r"(?<![\w.])(?:LLM|EngineArgs|AsyncEngineArgs)\(")
_CALL_REACH = 30      # lines an `LLM(` call's arguments may span in a pasted script


def _settings(lines: list[str], line_no: int):
    """(text, whether it is a call's arguments) of each place in the paste that names the user's settings."""
    package_source = _package_source_lines(lines)
    for i, line in enumerate(lines):
        if i + 1 == line_no or i in package_source or _CONFIG_DUMP in line:
            continue
        non_default = _NON_DEFAULT.search(line)
        engine_call = _ENGINE_CALL.search(line)
        if non_default:
            yield non_default.group(1), False
        elif engine_call:
            yield _call_arguments(lines[i:i + _CALL_REACH], engine_call.end()), True
        elif _FLAG.search(line):
            yield line, False


def _package_source_lines(lines: list[str]) -> set[int]:
    """The 0-based indexes of the source lines a traceback prints under a package's frames (a user's own script's
    frames show the user's settings: `llm = LLM(model=..., revision="v2")`)."""
    out = set()
    for i, line in enumerate(lines):
        frame = _FRAME_LINE.search(line)
        if frame and caller_package(frame.group("path")) is not None:
            out.add(i + 1)
    return out


def _call_arguments(lines: list[str], start: int) -> str:
    """The text of a call from just past its `(` to the parenthesis that closes it (or the lines' end)."""
    depth, text = 1, "\n".join(lines)
    for j in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[start:j]
    return text[start:]


def describe(ix, call: dict, caller: str, callee: str, facts: dict) -> dict | None:
    """The sg_* values of the answer; None where the call is not one across two packages vLLM's install
    ties together (the same package, or two that do not involve vLLM or its pins)."""
    if caller == callee:
        return None
    if "vllm" not in (caller, callee) and not (caller in STACK and callee in STACK):
        return None
    out = {"sg_callee": call["callee"], "sg_caller_pkg": _SHOWN.get(caller, caller), "sg_callee_pkg": _SHOWN.get(callee, callee),
           "sg_callee_dist": STACK.get(callee, FRAMEWORKS.get(callee, callee))}
    out.update(_complaint(call))
    out["sg_calls_vllm" if callee == "vllm" else "sg_calls_stack"] = "yes"
    if callee == "vllm":
        out.update(_framework_fix(caller, facts))
    else:
        out.update(_pin_fix(ix, callee, facts))
    if caller != "vllm":
        out["sg_caller_dist"] = STACK.get(caller, FRAMEWORKS.get(caller, caller))
    return out


def _complaint(call: dict) -> dict:
    kind = call["kind"]
    if kind == "kwarg":
        return {"sg_kwarg": call["arg"]}
    if kind == "missing":
        return {"sg_missing": call["arg"]}
    if kind == "positional":
        takes = call["takes"] if not call.get("takes_max") else f"{call['takes']} to {call['takes_max']}"
        return {"sg_takes": takes, "sg_given": call["given"]}
    return {"sg_other_arg": call["arg"]}


def _pin_fix(ix, callee: str, facts: dict) -> dict:
    """The range of the callee's package the log's vLLM pins, and where the installed release stands."""
    dist = STACK[callee]
    version = facts.get("vllm_version")
    out: dict = {}
    pin = ix.pin(str(version), dist) if version else None
    installed = _installed(facts, callee)
    if installed:
        out["sg_installed"] = installed
    if not pin:
        return out
    out["sg_pin"] = pin
    if installed and vkey(installed.split("+")[0]):
        out["sg_inside" if in_range(installed.split("+")[0], pin) else "sg_outside"] = "yes"
    # a range with a ceiling holds the releases vLLM was made with: its newest is the one to take; one without
    # also takes releases made after this vLLM, which may have changed the call the other way
    out["sg_capped" if "<" in pin else "sg_open"] = "yes"
    return out


def _installed(facts: dict, package: str) -> str | None:
    if package == "transformers":
        return facts.get("transformers_version")
    if package == "torch":
        return facts.get("torch_version")
    return None


def _framework_fix(caller: str, facts: dict) -> dict:
    """The vLLM a framework's release requires, where pip printed it; the vLLM the log shows."""
    dist = FRAMEWORKS.get(caller, caller)
    out: dict = {"sg_vllm_extra": "yes"} if dist in VLLM_EXTRA else {}
    for c in facts.get("pip_conflicts") or ():
        if c["package"] == "vllm" and c["by"].replace("_", "-") == dist and c["required"]:
            out.update(sg_fw_requires=c["required"], sg_fw_version=c["by_version"] or "")
            break
    return out
