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


# What runs the process says of its end (process_end.PROCESS_END, TERMINATED_STATE), each its own message under vLLM's
# last record: a JetBrains IDE, systemd's journal, Docker's state, kubectl describe's
@pytest.mark.parametrize("lines, name, says", [
    ("Process finished with exit code 139 (interrupted by signal 11:SIGSEGV)\n", "SIGSEGV", "IDE"),
    ("Process finished with exit code 134 (interrupted by signal 6: SIGABRT)\n", "SIGABRT", "IDE"),
    ("vllm.service: Main process exited, code=dumped, status=11/SEGV\nvllm.service: Failed with result 'core-dump'.\n",
     "SIGSEGV", "systemd"),
    ("vllm.service: Main process exited, code=killed, status=6/ABRT\nvllm.service: Failed with result 'signal'.\n",
     "SIGABRT", "systemd"),
    ('3f2a1b4c5d6e   vllm/vllm-openai:latest   "vllm serve /models/m"   5 minutes ago   Exited (139) 2 minutes ago'
     '             vllm\n', "SIGSEGV", "Docker"),
    ('        "Status": "exited",\n        "OOMKilled": false,\n        "Dead": false,\n        "Pid": 0,\n'
     '        "ExitCode": 134,\n', "SIGABRT", "Docker"),
    ("    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    139\n"
     "      Started:      Mon, 07 Dec 2026 15:30:00 +0000\n      Finished:     Mon, 07 Dec 2026 15:31:40 +0000\n",
     "SIGSEGV", "Kubernetes"),
])
def test_what_runs_the_process_reports_of_its_end(lines, name, says):
    d = top(VLLM + lines)
    assert d is not None and d.rule_id == "stack-signal" and name in d.title and says in d.cause
    # the report is a message of its own, not the tail of vLLM's last record
    assert not diagnose(VLLM + lines).root.text.startswith("Starting vLLM API server")


@pytest.mark.parametrize("lines", [
    "Process finished with exit code 130 (interrupted by signal 2:SIGINT)\n",      # the IDE's stop button
    "vllm.service: Main process exited, code=killed, status=1/HUP\n",
    "    Last State:     Terminated\n      Reason:       Completed\n      Exit Code:    0\n",
    "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n",
])
def test_an_end_by_no_fatal_signal_is_not_answered_as_one(lines):
    d = top(VLLM + lines)
    assert d is None or d.rule_id != "stack-signal"


def test_the_same_reports_say_oom_where_the_reporter_says_it():
    for lines in ("vllm.service: A process of this unit has been killed by the OOM killer.\n"
                  "vllm.service: Main process exited, code=killed, status=9/KILL\n"
                  "vllm.service: Failed with result 'oom-kill'.\n",
                  "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n",
                  '        "OOMKilled": true,\n        "Dead": false,\n        "ExitCode": 137,\n'):
        d = top(VLLM + lines)
        assert d is not None and d.rule_id == "os-oom-killed"


def test_the_reports_are_read_behind_a_long_log():
    filler = "".join(f"INFO 12-02 10:00:{i % 60:02d} [engine.py:{i}] filler line {i}\n" for i in range(1500))
    for lines, name in (("Process finished with exit code 139 (interrupted by signal 11:SIGSEGV)\n", "SIGSEGV"),
                        ("    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    134\n", "SIGABRT")):
        d = top(VLLM + filler + lines)
        assert d is not None and d.rule_id == "stack-signal" and name in d.title


@pytest.mark.parametrize("line", [
    # mm/oom_kill.c across kernels: __oom_kill_process since 5.0 (4.19's UID and oom_score_adj fields), before 5.0
    # oom_kill_process's "Kill process ... or sacrifice child" then "Killed process", the memcg's, 4.19's summary, the reaper
    "[ 812.3] Out of memory: Killed process 4321 (python3) total-vm:45678912kB, anon-rss:23456789kB, file-rss:0kB, "
    "shmem-rss:0kB, UID:0 pgtables:51234kB oom_score_adj:0",
    "[ 812.3] Out of memory: Kill process 4321 (python) score 912 or sacrifice child",
    "[ 812.3] Memory cgroup out of memory: Killed process 4321 (python3) total-vm:45678912kB, anon-rss:23456789kB, "
    "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:51234kB oom_score_adj:0",
    "[ 812.3] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=abc,mems_allowed=0,oom_memcg=/kubepods/pod1,"
    "task_memcg=/kubepods/pod1/abc,task=python3,pid=4321,uid=0",
    "[ 812.3] oom_reaper: reaped process 4321 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
])
def test_the_kernel_oom_killer_s_own_lines_across_kernels(line):
    d = top(VLLM + line + "\n")
    assert d is not None and d.rule_id == "os-oom-killed"
