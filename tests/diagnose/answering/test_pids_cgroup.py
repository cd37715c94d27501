"""thread-limit-reached: where the paste shows a container or a pids cgroup (a Docker, Podman or Kubernetes hint, systemctl
status's "Tasks: N (limit: M)", a pids.max read), the answer says that cgroup's pids.max counts threads too, beside
ulimit -u (answering/advice.py _pids_cgroup; reading/facts/machine.py pids_limit)."""

import pytest

from bot.diagnose import diagnose

VLLM = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "INFO 12-02 10:00:40 [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:8000\n")


def top(text: str):
    report = diagnose(text)
    return report.diagnoses[0] if report.diagnoses and report.verdict == "diagnosed" else None


THREADS = VLLM + "RuntimeError: can't start new thread\n"


@pytest.mark.parametrize("extra, flag", [
    ("$ kubectl logs vllm-0\n", "podPidsLimit"),
    ("$ docker run --gpus all vllm/vllm-openai:latest --model /models/m\n", "--pids-limit"),
    ("   Tasks: 4915 (limit: 4915)\n", "TasksMax="),
    ("$ cat /sys/fs/cgroup/pids.max\n64\n", "pids.max"),
])
def test_a_pids_cgroup_shown_is_named_beside_ulimit(extra, flag):
    d = top(extra + THREADS)
    assert d is not None and d.rule_id == "thread-limit-reached"
    assert "counts every thread" in d.cause and flag in d.cause + d.fix


def test_no_pids_cgroup_shown_says_nothing_of_it():
    d = top(THREADS)
    assert d is not None and d.rule_id == "thread-limit-reached" and "counts every thread" not in d.cause
