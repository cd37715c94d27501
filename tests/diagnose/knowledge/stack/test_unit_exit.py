"""systemd's report of a unit's process that exited with a status (reading/process_end.py): systemd's own statuses
(200 and up) are answered from its table (stack-unit-exit); the program's own (1/FAILURE, 127/n/a) are not, and no
longer run into the message above them."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack.build import systemd_exit_codes
from bot.diagnose.knowledge.stack.stack_families import load_index
from bot.diagnose.reading import process_end

VLLM = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "INFO 12-02 10:00:40 [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:8000\n")
ERROR = ("Traceback (most recent call last):\n  File \"/x/vllm/config/model.py\", line 3, in f\n"
         "    raise ValueError(msg)\n"
         "ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in "
         "KV cache (1000).\n")
UNIT_FAILED = "vllm.service: Main process exited, code=exited, status=1/FAILURE\nvllm.service: Failed with result 'exit-code'.\n"


def top(text: str):
    report = diagnose(text)
    return report.diagnoses[0] if report.diagnoses and report.verdict == "diagnosed" else None


def test_the_table_is_systemd_s_own_statuses():
    ix = load_index()
    assert len(systemd_exit_codes.ROWS) == 43
    assert ix.systemd_exit(203).name == "EXEC" and ix.systemd_exit("USER").number == 217
    assert ix.systemd_exit(226).symbol == "EXIT_NAMESPACE"
    assert ix.systemd_exit(1) is None and ix.systemd_exit(127) is None      # the program's own


@pytest.mark.parametrize("lines, name", [
    ("vllm.service: Main process exited, code=exited, status=203/EXEC\nvllm.service: Failed with result 'exit-code'.\n",
     "EXEC"),
    ("vllm.service: Failed at step USER spawning /opt/venv/bin/vllm: No such process\n"
     "vllm.service: Main process exited, code=exited, status=217/USER\n", "USER"),
    ("vllm.service: Failed to locate executable /opt/venv/bin/vllm: No such file or directory\n"
     "vllm.service: Failed at step EXEC spawning /opt/venv/bin/vllm: No such file or directory\n"
     "vllm.service: Main process exited, code=exited, status=203/EXEC\n", "EXEC"),
    ("   Process: 2176 ExecStart=/opt/venv/bin/vllm serve /models/m (code=exited, status=203/EXEC)\n"
     "  Main PID: 2176 (code=exited, status=203/EXEC)\n", "EXEC"),
    ("vllm.service: main process exited, code=exited, status=226/NAMESPACE\n", "NAMESPACE"),
])
def test_systemd_s_own_status_is_answered_from_its_table(lines, name):
    d = top(lines)
    assert d is not None and d.rule_id == "stack-unit-exit" and f"/{name}" in d.title


def test_the_program_s_own_status_is_no_answer():
    report = diagnose(UNIT_FAILED)
    assert report.verdict != "diagnosed"
    assert diagnose("vllm.service: Main process exited, code=exited, status=127/n/a\n").verdict != "diagnosed"


def test_the_unit_s_lines_end_the_message_above():
    for text in (VLLM + ERROR + UNIT_FAILED, ERROR + UNIT_FAILED):
        report = diagnose(text)
        assert report.root.text.endswith("(1000).")
        assert report.diagnoses and report.diagnoses[0].rule_id == "kv-cache-too-small"


def test_the_shapes():
    m = process_end.UNIT_EXIT.match("x.service: Main process exited, code=exited, status=203/EXEC")
    assert m and m.group("unit_status") == "203" and m.group("unit_status_name") == "EXEC"
    assert process_end.UNIT_EXIT.match("x.service: Main process exited, code=killed, status=9/KILL") is None
    assert process_end.UNIT_EXIT.match("x.service: Failed with result 'exit-code'.")

