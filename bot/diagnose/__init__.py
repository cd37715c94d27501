"""The heart of vllm-doctor: text in, Report out. No Slack, no database, no network.

    from bot.diagnose import diagnose
    report = diagnose(open("vllm.log", "rb").read(), lang="zh")

    reading/     the log made plain, its error messages and facts
    knowledge/   the sources that explain an error: the rule book, vLLM's releases
    answering/   rank, values from the log, release-true advice, the report
    pipeline.py  the orchestration of the three
"""

from .answering.report import Diagnosis, Report, RootError
from .knowledge.rulebook import RuleBook, load_rulebook
from .pipeline import diagnose, not_vllm

__all__ = ["diagnose", "not_vllm", "Diagnosis", "Report", "RootError", "load_rulebook", "RuleBook"]
