"""A store filled the way the bot fills it: real pastes through the real diagnose(), then feedback
(shared by the learn and dashboard tests)."""

from dataclasses import dataclass

import pytest

from tests.store.helpers import diagnose, fixture_logs, load_book, make_book, read


@dataclass
class Recorded:
    store: object
    book: object
    rules_dir: object
    ids: dict          # rule id of the fixture folder -> diagnosis ids, in fixture order
    url: str


@pytest.fixture
def recorded(store, store_url, tmp_path):
    rules_dir = make_book(tmp_path / "rules")
    book = load_book(rules_dir)
    ids: dict[str, list[int]] = {}
    for folder in ("cuda-oom", "bf16-unsupported-gpu", "lora-rank-too-large", "kv-cache-no-memory",
                   "config-json-missing"):
        for path in fixture_logs(folder):
            text = read(path)
            ids.setdefault(folder, []).append(
                store.record_diagnosis(diagnose(text, book), source="slack", text=text, channel="C0GPUHELP"))
    oom, bf16 = ids["cuda-oom"], ids["bf16-unsupported-gpu"]
    store.record_feedback(oom[0], "wrong", user="U1")
    store.record_feedback(oom[0], "fixed", user="U1", reason="misclicked before")   # U1 changed their mind
    store.record_feedback(oom[0], "fixed", user="U2")
    store.record_feedback(oom[1], "fixed", user="U3")
    store.record_feedback(oom[2], "partly", user="U4")
    for i, diagnosis_id in enumerate(bf16):
        store.record_feedback(diagnosis_id, "wrong", user=f"U{10 + i}", reason="it was the driver")
    return Recorded(store, book, rules_dir, ids, store_url)
