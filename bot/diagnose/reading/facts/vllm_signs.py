"""What shows vLLM in a paste: lines only vLLM prints, its server's error relayed through a client, a mention of it, a
framework in its vLLM mode or a Ray actor that hosts it; and an engine that imports vLLM only as a library.
"""

from __future__ import annotations

import re

from bot.base.lazyre import LazyRe
from bot.diagnose.reading.proc_tags import PROC_QUALIFIER

from .markers import _RL_FRAMEWORKS, _VLLM_HOST_ACTORS, _VLLM_MENTIONED, _VLLM_MODES, _markers_present
from .other_programs import foreign_shape
from .patterns import _P
from .traceback_frames import _VLLM_FRAME


# Evidence that vLLM printed (part of) this log: its name, its processes, its log header form.
# Lines only vLLM itself prints: its paths, modules, processes, log header, config classes.
# Plain markers first (a str.find each), then the patterns, each tried only where its literal is.
_VLLM_PRINTED_MARKS = ("/vllm/", "\\vllm\\", "vllm/vllm-openai", "EngineCore", "LLMEngine", "AsyncLLM",
                       # vLLM's Ray actors: V0/V1's RayWorkerWrapper, executor v2's RayWorkerProc (vLLM 0.32.0
                       # v1/executor/ray_executor_v2.py), which Ray names as an actor's class_name
                       "RayWorkerWrapper", "RayWorkerProc", "Writing input of failed execution",
                       # the process tags of vLLM's API server (0.10+) and of its Ray actor before 0.2
                       "(APIServer pid=", "(RayWorker pid=")
_VLLM_HEADER = _P(r"(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d \[?[\w./-]+\.py:\d+\]",
                  literals=("INFO ", "WARNING ", "ERROR ", "DEBUG "))
_VLLM_PRINTED = (
    _P(r"\bvllm\.[a-z_]|\b(?:from|import) vllm\b|\bvllm serve\b|vllm_\w+\.py", literals=("vllm",)),
    _P(r"\bVLLM_[A-Z_]{3,}", literals=("VLLM_",)),
    _P(r"\((?:Vllm)?Worker[\w-]* (?:" + PROC_QUALIFIER + r" )?pid=", literals=("Worker",)),
    _VLLM_HEADER,
    _P(r"validation errors? for (?:Model|Vllm|Cache|Parallel|Scheduler|Speculative|LoRA)Config",
       literals=("validation error",)),
)


# Engines whose logger copied vLLM's header ("%(levelname)s %(asctime)s [%(filename)s:%(lineno)d]", "%m-%d %H:%M:%S"):
# LightLLM's lightllm/utils/log_utils.py ("INFO 12-02 09:36:21 [mem_manager.py:200] ..."), Aphrodite Engine's older
# releases ("INFO 12-15 11:52:48 aphrodite_engine.py:73] Initializing the Aphrodite Engine ..."). Where one of
# them is named by its package, modules or engine (not by a model named after the goddess), that header alone is
# no line of vLLM's.
_HEADER_COPIES = ("lightllm.", "lightllm/", "lightllm\\", "aphrodite_engine", "aphrodite/", "aphrodite\\",
                  "aphrodite.", "aphrodite engine", "async_aphrodite")


_VLLM_PATH_MARKS = ("/vllm/", "\\vllm\\")


def vllm_printed(text: str, paths: bool = True) -> bool:
    """Lines only vLLM itself prints: its paths, modules, processes, log header, config classes (its paths only where
    `paths`)."""
    if any(m in text for m in _VLLM_PRINTED_MARKS if paths or m not in _VLLM_PATH_MARKS) \
            or any(p.search(text) for p in _VLLM_PRINTED if p is not _VLLM_HEADER):
        return True
    if not _VLLM_HEADER.search(text):
        return False
    low = text.lower()
    return not any(m in low for m in _HEADER_COPIES)


# The error vLLM's OpenAI server answers with, as a client prints it: the body of <= 0.10.0
# ('object': 'error'), the body of 0.10.1+ (an "Error"-named type, then param and an HTTP code, in
# vLLM's field order; OpenAI's own API names types like 'invalid_request_error'), and the
# "(parameter=..., value=...)" its validation errors end with. Servers that copied the body (SGLang)
# name themselves elsewhere in their logs: a named program still wins over this.
# A body quoted inside another JSON string has its quotes escaped (\"type\":\"BadRequestError\", ovh/shai#97).
_Q = r"""\\*['"]"""
_VLLM_SERVER_ERROR = _P(
    _Q + r"""object""" + _Q + r""": ?""" + _Q + r"""error""" + _Q + r"""|"""
    + _Q + r"""type""" + _Q + r""": ?""" + _Q + r"""[A-Z]\w*Error""" + _Q + r""", ?""" + _Q + r"""param""" + _Q
    + r""": ?[^,]{1,80}, ?""" + _Q + r"""code""" + _Q + r""": ?\d{3}\b|"""
    r"""\(parameter=\w+(?:, \w+)*, value=""", literals=("object", "Error", "(parameter="))
# A client's exception that carries a server's answer (the openai SDK, LiteLLM, requests): its
# frames are the client's, the error is the server's.
_CLIENT_HTTP_ERROR = _P(r"Error code: [45]\d\d - |OpenAIException - |\b[45]\d\d (?:Client|Server) Error: ",
                        literals=("Error code: ", "OpenAIException - ", "Client Error: ", "Server Error: "))


# Ray relaying an actor's fate to the driver (ray.get's exception, the raylet's push, the scheduler's wait,
# Ray's memory monitor killing it), or the driver's own ray.init() failing to reach the cluster its actors
# were to run on: Ray's words, whatever frames the trainer's traceback has
_RAY_ACTOR_FATE = _P(r"\b(?:ActorDiedError|RayActorError|WorkerCrashedError)\b|The actor died unexpectedly"
                     r"|A worker died or was killed|cannot be scheduled right now|No available node types can fulfill"
                     r"|killed due to the node running low on memory|killed due to memory pressure \(OOM\)"
                     r"|Could not find any running Ray instance|Failed to connect to GCS(?: at address|\. )"
                     r"|Unable to connect to GCS|Failed to get cluster ID from GCS|Failed to connect to Ray cluster at"
                     r"|Failed to connect to the default Ray cluster address|from GCS\. Did GCS start successfully"
                     r"|Can't find a `?node_ip_address\.json`? file"
                     # the cluster's Ray or Python is not the driver's (ray.init's check, `ray` CLI's)
                     r"|Version mismatch: The cluster was started with|Ray version mismatch: cluster has Ray version"
                     r"|Python minor versions differ between client and server|Client Ray installation incompatible"
                     # verl's own check that Ray has the GPUs its worker pools (and so its vLLM rollout) ask for
                     r"|is less than total desired GPUs|cannot be satisfied in this ray cluster",
                     literals=("ActorDiedError", "RayActorError", "WorkerCrashedError", "The actor died",
                               "A worker died", "cannot be scheduled", "No available node types",
                               "running low on memory", "memory pressure (OOM)", "running Ray instance",
                               "Failed to connect to GCS", "Unable to connect to GCS", "cluster ID from GCS",
                               "Failed to connect to Ray cluster", "default Ray cluster address", "Did GCS start",
                               "node_ip_address",
                               "ersion mismatch", "versions differ between client", "Client Ray installation",
                               "total desired GPUs", "satisfied in this ray cluster"))


# Mentions of vLLM that only list it among what is installed or available, not a run of it: SGLang's check_env line
# ("vllm: 0.7.2", "vllm: Module Not Found", python/sglang/check_env.py) and LocalAI's table of its backends in every
# model load it logs ("externalBackends:map[... vllm:/build/backend/python/vllm/run.sh]"); lower case
_VLLM_LISTED = LazyRe(r"(?m)^[ \t]*vllm: (?:module not found|\d[\w.+-]*)[ \t]*$|\bvllm:\S*/backend/python/vllm/run\.sh")


def names_vllm(low: str) -> bool:
    """The paste names vLLM (`low`, in lower case), other than in a listing of what is installed or available."""
    return "vllm" in low and "vllm" in _VLLM_LISTED.sub("", low)


# vLLM run, not named: its CLI and module entry points, its modules in an import or a path, its image, a framework's
# option that picks it as the backend (`--infer_backend vllm`, `backend="vllm"`); lower case
_VLLM_INVOKED = LazyRe(r"\bvllm (?:serve|bench|chat|complete|run-batch)\b|-m vllm\b|\bvllm[./\\](?:entrypoints|engine|v1|"
                       r"worker|executor|model_executor|distributed|config)\b|(?:^|[\s>$;])(?:from|import) vllm\b|"
                       r"vllm/vllm-openai|backend\W{1,4}vllm\b", re.M)


def _vllm_ran(text: str, low: str) -> bool:
    """The paste shows vLLM run (`low` in lower case): its engine's lines, its entry points or modules, a frame of
    its own files, a framework in its vLLM mode, or a vLLM server's answer relayed through a client."""
    # ("vllm serve" as a word of its own: "vLLM serves the same model" is a user's sentence)
    return (any(m in low for m in _VLLM_ENGINE_RAN if m != "vllm serve") or _VLLM_INVOKED.search(low) is not None
            or vllm_mode(low)
            or 'File "' in text and _VLLM_FRAME.search(text) is not None
            or _relayed_server_error(text) or _VLLM_SERVER_ERROR.search(text) is not None)


# Engines that import vLLM's modules as a library and never start vLLM's engine. SGLang up to 0.4 built its models on
# vLLM's layers, parallel state and weight loader (sglang/srt/models/llama2.py calling vllm/model_executor/layers/
# linear.py), and importing it imports vLLM, which prints its platform line ("INFO 04-03 04:46:18 __init__.py:190]
# Automatically detected platform cuda.") and patches torch (a "vllm/utils.py ... in _patched_set_stream" frame under
# SGLang's scheduler). Where the engine's own server runs (its srt package in a frame or a module path, its launcher,
# its server arguments) and nothing shows vLLM's engine starting, vLLM's lines and frames are a library's inside that
# engine: the log is the engine's, whatever vLLM printed. Its record headers alone say less: they make vLLM's import
# lines the engine's (the platform line), not a traceback through vLLM's own files, which a user may paste beside
# them from a vLLM run; that stays vLLM's as any other program's shape does. (name, lower-case markers, the names of
# its _FOREIGN_SHAPES)
_VLLM_AS_LIBRARY = [
    ("SGLang", ("sglang/srt/", "sglang\\srt\\", "sglang.srt.", "sglang.launch_server", "server_args=serverargs("),
     ("SGLang (its `[date TP0]` log records)", "SGLang (its `[gpu_id=N]` log records)")),
]
# vLLM's engine starting or serving (lower case): its server's banner, arguments and process tags, its engine's config
# line, classes and files, its workers, its CLI and entry points, an offline `from vllm import LLM`
_VLLM_ENGINE_RAN = ("vllm api server version", "non-default args", "llm engine (v", "enginecore", "llmengine",
                    "llm_engine", "asyncllm", "vllmworker", "rayworkerwrapper", "(apiserver pid=", "vllm serve",
                    "vllm.entrypoints", "vllm/entrypoints", "[llm.py:", "from vllm import llm")


def vllm_as_library(text: str, low: str, shape: str | None = ...) -> str | None:
    """The engine whose own server the paste shows running with vLLM imported as a library inside it, where vLLM's
    engine never starts (`low` is the text in lower case; `shape`, foreign_shape's answer where the caller has it)."""
    if any(m in low for m in _VLLM_ENGINE_RAN):          # first: a vLLM log names its engine in its first lines
        return None
    named = next((name for name, markers, _ in _VLLM_AS_LIBRARY if any(m in low for m in markers)), None)
    if named:
        return named
    shape = foreign_shape(text) if shape is ... else shape
    if shape is None or 'File "' in text and _VLLM_FRAME.search(text):   # vLLM's traceback beside the records
        return None
    return next((name for name, _, own in _VLLM_AS_LIBRARY if shape in own), None)


_HUB_HOST = LazyRe(r"https?://[\w.-]*(?:huggingface\.co|hf\.co|hf-mirror\.com)\b")
_ANY_URL = LazyRe(r"https?://[^\s'\"]+")
HUB_URL_REACH = 400


def _relayed_server_error(text: str) -> bool:
    """A client's HTTP error (a script calling a vLLM server): the frames are the client's, the
    error the server's, so they say nothing of the program. Not the Hub's answer to a download:
    that is the program's own request, and its frames are what show which program it was."""
    m = _CLIENT_HTTP_ERROR.search(text)
    if m is None:
        return False
    # the Hub's message names its URL on the error's line or in the few lines it adds below it; a
    # paste cut before the URL is the Hub's when it names the Hub at all
    url = _ANY_URL.search(text, m.end(), m.end() + HUB_URL_REACH)
    return not _HUB_HOST.match(url.group(0)) if url else _HUB_HOST.search(text) is None


def _hosts_vllm(low: str) -> bool:
    """A Ray actor the paste names is one that hosts vLLM engines (verl's WorkerDict, OpenRLHF's LLMRayActor)."""
    return _markers_present(low)(_VLLM_HOST_ACTORS)


def rl_trainer(low: str) -> str | None:
    """The RL framework hosting vLLM that the paste shows (`low` in lower case), for its own settings in a fix."""
    present = _markers_present(low)
    return next((name for name, _, markers in _RL_FRAMEWORKS if name and present(markers)), None)


def _relayed_actor_fate(text: str, low: str) -> bool:
    """The driver's traceback relays what happened to the actors that host vLLM: its frames are the trainer's (ray.get
    in verl's or OpenRLHF's loop), the error is Ray's about those actors (their death, their pending placement, Ray's
    memory monitor killing them) or the driver's ray.init failing to reach the cluster they were to run on."""
    return _hosts_vllm(low) and bool(_RAY_ACTOR_FATE.search(text))


def _mentions_vllm(low: str) -> bool:
    """A mention is weaker than vLLM's own output: another tool that runs vLLM (`--backend vllm`)."""
    return _markers_present(low)(_VLLM_MENTIONED)


def vllm_mode(low: str) -> bool:
    """The paste shows a framework in its vLLM mode, in words that do not name vLLM (Ray Serve LLM, swift rollout)."""
    return any(m in low for m in _VLLM_MODES)
