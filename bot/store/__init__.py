"""Outcome store: diagnoses, feedback, seen Slack events, user preferences and repro jobs.

`Store` writes (and spools when the database is down); `redact` masks secrets in anything stored.
Importing this package pulls in SQLAlchemy but never Slack or vLLM.
"""

from .redact import redact, redact_obj
from .store import Store

__all__ = ["Store", "redact", "redact_obj"]
