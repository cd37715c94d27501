"""Distributed failures: a hang's hint yields to the error printed after it; a Windows prompt that
started a Linux process does not make the paste native Windows."""

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.reading import facts, logtext, tracebacks

BOOK = load_rulebook(use_cache=False)
BAR = "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  98%|#########8| 66/67 [00:05<00:00, 12.1it/s]"


def _ids(text):
    return [d.rule_id for d in diagnose(text, book=BOOK).diagnoses]


def test_a_capture_bar_the_log_ends_in_is_still_the_hang():
    assert _ids("INFO 05-14 10:00:00 [gpu_model_runner.py:3000] Model loading took 1.0 GiB\n" + BAR)[:1] == \
        ["cuda-graph-capture-slow"]


def test_an_exception_after_the_capture_bar_is_no_hang():
    """The process died during capture: its error (here one no rule knows) is quoted, not "still capturing"."""
    report = diagnose(BAR + "\nRuntimeError: something the rule book does not know about at all\n", book=BOOK)
    assert "cuda-graph-capture-slow" not in [d.rule_id for d in report.diagnoses]
    assert report.root is not None and "does not know" in report.root.text


def test_the_users_ctrl_c_after_a_hang_leaves_the_hang_the_answer():
    """A run that hung is often pasted with the KeyboardInterrupt the user stopped it with: that traceback
    is not the process dying, and the line the process printed last is still its last line."""
    hung = "INFO 05-14 10:00:00 [gpu_model_runner.py:3000] Model loading took 1.0 GiB\n" + BAR + "\n"
    stopped = hung + ('^CTraceback (most recent call last):\n  File "/app/serve.py", line 9, in <module>\n'
                      "    llm.generate(prompts)\nKeyboardInterrupt\n")
    report = diagnose(stopped, book=BOOK)
    assert [d.rule_id for d in report.diagnoses][:1] == ["cuda-graph-capture-slow"]
    assert report.diagnoses[0].line_no == 2


def test_the_ipc_failure_printed_during_capture_is_the_answer():
    text = BAR + "\n(VllmWorker rank=1 pid=5) Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'\n"
    assert _ids(text)[:1] == ["cuda-ipc-custom-allreduce"]


def _os_hint(text):
    clean = logtext.clean(text, "en").text
    errors = tracebacks.messages(clean)
    return facts.extract(clean, "\n".join(m.text for m in errors)).get("os_hint")


def test_a_powershell_prompt_that_started_a_linux_container_is_not_native_windows():
    text = ("PS C:\\Users\\bob> docker run --gpus all vllm/vllm-openai --model x\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/utils/network_utils.py", line 402, in make_zmq_socket\n'
            "    socket.bind(path)\n"
            "zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:29611')\n")
    assert _os_hint(text) is None
    assert _ids(text)[:1] == ["port-in-use"]


def test_frames_under_a_windows_drive_are_still_windows():
    text = ("Traceback (most recent call last):\n"
            '  File "E:\\app\\envs\\x\\Lib\\site-packages\\vllm\\v1\\engine\\core_client.py", line 465, in __init__\n'
            "    self.input_socket = make_zmq_socket(\n"
            "zmq.error.ZMQError: Address in use (addr='tcp://127.0.0.1:45974')\n")
    assert _os_hint(text) == "windows"
    assert _ids(text)[:1] == ["port-in-use"]
