"""The signal family (stack_families._signal, rules/stack-signal.yaml): a process's death by a signal, answered from
the stack index's table where it is the first error of a paste that shows vLLM."""

import pytest

from bot.diagnose import diagnose

VLLM = ("INFO 12-02 10:00:00 [api_utils.py:273] non-default args: {'model': '/models/m'}\n"
        "INFO 12-02 10:00:40 [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:8000\n")


def top(text: str):
    report = diagnose(text)
    return report.diagnoses[0] if report.diagnoses and report.verdict == "diagnosed" else None


@pytest.mark.parametrize("line, name", [
    ("Segmentation fault (core dumped)", "SIGSEGV"),
    ("./serve.sh: line 3:  4242 Aborted                 (core dumped) vllm serve /models/m", "SIGABRT"),
    ("Aborted (core dumped)", "SIGABRT"),
    # bash pads the words to a column the longest fills, leaving no space before the command
    ("./serve.sh: line 3: 19455 Floating point exceptionpython serve.py", "SIGFPE"),
    ("Floating point exception(core dumped)", "SIGFPE"),
    ("zsh: segmentation fault  vllm serve /models/m", "SIGSEGV"),
    ("Fatal Python error: Segmentation fault", "SIGSEGV"),
    ("*** SIGSEGV received at time=1733000000 on cpu 12 ***", "SIGSEGV"),
    ("!!!!!!! Segfault encountered !!!!!!!", "SIGSEGV"),
    ("subprocess.CalledProcessError: Command '['python', 'worker.py']' died with <Signals.SIGUSR1: 10>.", "SIGUSR1"),
])
def test_each_report_names_its_signal(line, name):
    d = top(VLLM + line + "\n")
    assert d is not None and d.rule_id == "stack-signal"
    assert name in d.title and name in d.cause


def test_the_exit_codes_come_from_the_table():
    d = top(VLLM + "Segmentation fault (core dumped)\n")
    assert "139" in d.cause and "-11" in d.cause


def test_a_bare_signal_with_no_vllm_in_the_paste_is_not_answered():
    # a training script's, a test's, another server's crash reads the same
    assert top("$ python repro.py\nLoop inside profiler 11\nSegmentation fault (core dumped)\n") is None


def test_an_exception_above_the_death_is_the_error_not_the_signal():
    paste = VLLM + ("Traceback (most recent call last):\n  File \"/app/x.py\", line 3, in <module>\n    run()\n"
                    "ValueError: the request's payload is not valid JSON\nSegmentation fault (core dumped)\n")
    d = top(paste)
    assert d is None or d.rule_id != "stack-signal"


def test_the_hand_written_rule_for_a_kill_beside_vllm_answers_first():
    d = top(VLLM + "Killed\n")
    assert d is not None and d.rule_id == "os-oom-killed"


def test_the_crash_report_names_where_it_struck():
    paste = VLLM + ("Fatal Python error: Segmentation fault\n\n"
                    "Thread 0x00007f3c5e6f7740 (most recent call first):\n"
                    '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/decode.py", line 540 in plan\n'
                    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/flashinfer.py", '
                    "line 300 in build\n")
    d = top(paste)
    assert d.rule_id == "stack-signal" and "flashinfer" in d.cause


def test_the_answer_in_chinese():
    d = diagnose(VLLM + "Segmentation fault (core dumped)\n", lang="zh").diagnoses[0]
    assert d.rule_id == "stack-signal" and "SIGSEGV" in d.title and "信号" in d.title and "退出状态 139" in d.cause


def test_vllm_named_only_among_the_packages_installed_is_not_vllm_s_log():
    # a training script's crash, with `pip list` pasted beside it
    paste = "$ pip list | grep -E 'torch|vllm'\ntorch 2.8.0\nvllm 0.10.2\n$ python train.py\nSegmentation fault (core dumped)\n"
    assert top(paste) is None


def test_a_death_after_the_batch_finished_is_told_as_one():
    bar = "Processed prompts: 100%|██████████| 4/4 [00:01<00:00,  3.1it/s, est. speed input: 20.1 toks/s]\n"
    after = top(VLLM + bar + "Segmentation fault (core dumped)\n")
    midway = top(VLLM + bar.replace("100%", " 50%").replace("4/4", "2/4") + "Segmentation fault (core dumped)\n")
    assert "Processed prompts: 100%" in after.cause and "Processed prompts: 100%" not in midway.cause


COMPOSE = "vllm-1  | INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.8.5\n"


def test_compose_s_exit_status_is_read_as_its_signal():
    d = top(COMPOSE + "vllm-1 exited with code 139\n")
    assert d.rule_id == "stack-signal" and "SIGSEGV" in d.title and "Docker Compose" in d.cause


def test_an_exit_status_of_a_signal_that_ends_no_process_on_a_fault_is_not_answered():
    # 130: someone pressed Ctrl-C (SIGINT); 141: a closed pipe
    for code in (130, 141, 1):
        d = top(COMPOSE + f"vllm-1 exited with code {code}\n")
        assert d is None or d.rule_id != "stack-signal"


def test_a_crash_after_ctrl_c_is_the_stop_s_teardown_not_the_error():
    stopped = VLLM + ("Traceback (most recent call last):\n  File \"/app/run.py\", line 9, in <module>\n"
                      "    llm.generate(prompts)\nKeyboardInterrupt\nSegmentation fault (core dumped)\n")
    d = top(stopped)
    assert d is None or d.rule_id != "stack-signal"
