"""A repro result for people: a terminal summary and Markdown for the Slack thread.

Both read the plain dict of `ReproResult.to_dict()` (what the job row stores), so the bot can
render a result that a worker on another host wrote.
"""

from __future__ import annotations

ENV_KEYS = (("vllm", "vLLM"), ("torch", "torch"), ("cuda", "CUDA"), ("driver", "driver"),
            ("gpu_name", "GPU"), ("platform", "platform"))
FIX_CHARS = 1500


def _value(value) -> str:
    return repr(value)


def _settings(settings: dict) -> str:
    return ", ".join(f"{k}={_value(v)}" for k, v in settings.items()) or "(none)"


def _step_label(step: dict) -> str:
    if step.get("label"):
        return step["label"]
    if step.get("kind") == "bare":
        return "bare start"
    if step.get("kind") == "fix":
        return "with the fix"
    added = step.get("added")
    if step.get("kind") == "preflight":
        return f"preflight + {added}" if added else "preflight"
    return f"+ {added}" if added else step.get("kind", "?")


def _outcome(step: dict) -> str:
    if step.get("ok"):
        return "ok"
    return "timed out" if step.get("timed_out") else "FAILS"


def env_line(env: dict) -> str:
    parts = [f"{label} {env[key]}" for key, label in ENV_KEYS if env.get(key)]
    return ", ".join(parts) or "unknown"


def headline(result: dict) -> str:
    verdict = result.get("verdict")
    culprit = result.get("culprit")
    if verdict == "ok":
        return "vLLM starts and generates with all your settings: no failure reproduced."
    if verdict == "cancelled":
        return "The repro was cancelled."
    if culprit:
        return f"The culprit is {culprit['key']}={_value(culprit['value'])}."
    return result.get("summary") or "It fails, and not because of one of your settings."


def _fix_line(result: dict) -> str | None:
    confirmed = result.get("fix_confirmed")
    fix = result.get("fix_settings")
    if confirmed is None or not fix:
        return None
    shown = ", ".join(f"{k}={_value(v)}" if v is not None else f"{k} unset" for k, v in fix.items())
    return f"Fix tried ({shown}): {'it cures it' if confirmed else 'it does NOT cure it'}."


def render_text(result: dict) -> str:
    lines = [headline(result)]
    if result.get("summary") and result.get("verdict") == "fails":
        lines.append(result["summary"])
    diagnosis = result.get("diagnosis")
    if diagnosis:
        lines.append(f"Diagnosis [{diagnosis['rule_id']}]: {diagnosis.get('title', '')}")
        if diagnosis.get("fix"):
            lines += ["", diagnosis["fix"].strip()[:FIX_CHARS]]
    elif result.get("error"):
        error = result["error"]
        lines.append(f"First error: {error.get('root') or error.get('message')}")
    fix = _fix_line(result)
    if fix:
        lines += ["", fix]
    lines += ["", "Steps:"]
    for n, step in enumerate(result.get("steps", []), 1):
        rule = f"  [{step['rule_id']}]" if step.get("rule_id") else ""
        lines.append(f"  {n}. {_step_label(step):36} {_outcome(step):9} {step.get('seconds', 0):7.1f} s{rule}")
    lines.append(f"Engine starts: {result.get('engine_starts', 0)}, total {result.get('seconds', 0):.1f} s")
    lines.append(f"Environment: {env_line(result.get('env') or {})}")
    for note in result.get("notes") or []:
        lines.append(f"Note: {note}")
    return "\n".join(lines) + "\n"


def render_result_markdown(result: dict) -> str:
    """Markdown for the thread; the repro script goes along as a file, not inline."""
    lines = [f"**Repro of `{result.get('model', '?')}`**: {headline(result)}"]
    diagnosis = result.get("diagnosis")
    if diagnosis:
        lines.append(f"**Diagnosis** `{diagnosis['rule_id']}`: {diagnosis.get('title', '')}")
        if diagnosis.get("cause"):
            lines.append(diagnosis["cause"].strip()[:FIX_CHARS])
        if diagnosis.get("fix"):
            lines += ["**Fix**", diagnosis["fix"].strip()[:FIX_CHARS]]
    elif result.get("error"):
        error = result["error"]
        first = (error.get("root") or error.get("message") or "").strip()
        if first:
            lines += ["First error:", f"```\n{first[:800]}\n```"]
    fix = _fix_line(result)
    if fix:
        lines.append(f"_{fix}_")
    rows = ["| # | step | settings | result | seconds |", "|---|---|---|---|---|"]
    for n, step in enumerate(result.get("steps", []), 1):
        rule = f" `{step['rule_id']}`" if step.get("rule_id") else ""
        rows.append(f"| {n} | {_step_label(step)} | `{_settings(step.get('settings') or {})}` | "
                    f"{_outcome(step)}{rule} | {step.get('seconds', 0):.1f} |")
    lines += ["\n".join(rows)]
    lines.append(f"Engine starts: {result.get('engine_starts', 0)} · environment: {env_line(result.get('env') or {})}")
    for note in result.get("notes") or []:
        lines.append(f"_Note: {note}_")
    return "\n\n".join(lines)
