"""The improvement loop: failure signatures, per-rule statistics, rule drafts from unanswered pastes."""
