"""Whether answers drawn from vLLM's source name the user's knob (prints figures; not a test).

    python tests/bench_knob_audit.py [-v] [--all]

The sample: the real logs of `vllm-check-failed` (tests/fixtures/logs/vllm-check-failed/), and 40
user-facing raise sites of common failures (a package that is not installed, a token id or vocabulary
check; seed 7), each message synthesised into a minimal traceback. An answer "names a knob" when its fix
is not the paragraph that says none of the names the check reads is a knob the index knows. `-v`
prints each answer for a person to check for false statements; `--all` also counts every user-facing
raise site of every indexed release (about 3 minutes).
"""

from __future__ import annotations

import glob
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.diagnose import diagnose  # noqa: E402
from bot.diagnose.knowledge.vllm import load_index  # noqa: E402
from bot.diagnose.knowledge.vllm.synthesis import in_traceback, synthesise  # noqa: E402

NO_KNOB = "None of the names this check reads"
# the rules of the vLLM-source families (rules/vllm-*.yaml with a `family:`)
SOURCE_RULES = ("vllm-check-failed", "vllm-config-invalid", "vllm-name-unknown", "vllm-optional-package-missing",
                "vllm-module-gone")
COMMON = re.compile(r"is not available|not installed|please install|out of vocab|vocab|token id|"
                    r"exceeds the (?:model|maximum)", re.I)
ROOT = Path(__file__).resolve().parents[1]
# a fix that says which way: direction.py's sentences; one that says to install a package (missing.py)
WAYS = ("The check accepts `", "The check lets it through if ", "检查接受 `", "检查就会通过")
INSTALL = ("2. Install it in the environment", "2. Upgrade it in the environment", "2. Install the package that provides")


def paste(site) -> str:
    release = site.latest_where()["release"]
    return (f"INFO 12-05 10:00:00 [api_server.py:1] vLLM API server version {release}\n"
            + in_traceback(site.exc, synthesise(site)))


def sample(idx) -> list[tuple[str, str]]:
    logs = sorted(glob.glob(str(ROOT / "tests/fixtures/logs/vllm-check-failed/*.log")))
    items = [(Path(p).name, Path(p).read_text(errors="replace")) for p in logs]
    sites = sorted((s for s in idx.sites if s.user_facing and COMMON.search(s.template)), key=lambda s: (s.exc, s.template))
    random.seed(7)
    return items + [(f"site {s.exc}: {s.template[:70]}", paste(s)) for s in random.sample(sites, 40)]


def count(items, verbose: bool) -> tuple[int, int]:
    family = knob = 0
    for name, text in items:
        found = diagnose(text).diagnoses
        d = found[0] if found else None
        ours = d is not None and d.rule_id in SOURCE_RULES
        named = ours and NO_KNOB not in d.fix
        family += ours
        knob += named
        print(f"{'knob' if named else 'none' if ours else 'rule'}  {d.rule_id if d else '-'}  {name}")
        if verbose and ours:
            print(d.cause, "\n", d.fix, "\n")
    return family, knob


def main() -> None:
    idx = load_index()
    items = sample(idx)
    family, knob = count(items, "-v" in sys.argv)
    print(f"sample {len(items)}: answered from vLLM's source {family}, naming a knob {knob}")
    if "--all" in sys.argv:
        answered = none = way = install = 0
        for site in idx.sites:
            if site.user_facing:
                found = diagnose(paste(site)).diagnoses
                if found and found[0].rule_id == "vllm-check-failed":
                    answered += 1
                    none += NO_KNOB in found[0].fix
                    way += any(w in found[0].fix for w in WAYS)
                    install += any(w in found[0].fix for w in INSTALL)
        print(f"every user-facing site: vllm-check-failed {answered}, of them told no knob {none}")
        print(f"  told which way to move a knob {way}, told to install a package {install}")


if __name__ == "__main__":
    main()
