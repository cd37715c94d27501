import pytest

from bot.diagnose import diagnose

KV = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
WRAPPER = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"


def ids(report):
    return [d.rule_id for d in report.diagnoses]


def test_first_real_error_beats_the_wrapper_at_the_end(book):
    log = f"(EngineCore_DP0 pid=5) ERROR 11-09 12:00:00 [core.py:1] {KV}\n{WRAPPER}\n"
    r = diagnose(log, book=book)
    assert ids(r) == ["no-cache-memory"] and r.verdict == "diagnosed"
    assert r.root.line_no == 1 and r.root.proc == "EngineCore_DP0 pid=5"


def test_only_a_wrapper_asks_for_the_lines_above(book):
    r = diagnose(WRAPPER, book=book)
    assert ids(r) == ["engine-wrapper"] and r.verdict == "wrapper_only"
    assert "ABOVE" in r.next_step


def test_two_engine_starts_tell_entry_4_from_entry_3(book):
    start = "INFO 11-09 12:00:00 [utils.py:1] non-default args: {'model': '/m', 'gpu_memory_utilization': 0.35}\n"
    one = diagnose(start + KV, book=book)
    two = diagnose(start + start + KV, book=book)
    assert ids(one) == ["no-cache-memory"]
    assert ids(two) == ["two-engines", "no-cache-memory"]


def test_captures_and_facts_fill_the_text_and_missing_ones_drop_a_paragraph(book):
    r = diagnose("RuntimeError: Worker failed with error 'LoRA rank 64 is greater than max_lora_rank 16.', "
                 "please check the stack trace above for the root cause", book=book)
    d = r.best
    assert d.rule_id == "lora-rank" and d.captures == {"rank": "64", "max": "16"}
    assert d.cause == "Adapter rank 64 > 16." and d.fix == "Set max_lora_rank=64."
    kv = diagnose(KV, book=book).best
    assert kv.fix == "Raise gpu_memory_utilization."
    with_args = diagnose("non-default args: {'gpu_memory_utilization': 0.01}\n" + KV, book=book).best
    assert "Your log asked for 0.01." in with_args.fix     # the user's own settings fill the text


def test_chinese_answers(book):
    assert diagnose(KV, lang="zh", book=book).best.fix == "提高 gpu_memory_utilization。"


def test_version_caveat_when_the_log_is_older_than_the_message(book):
    log = ("INFO 01-01 00:00:00 llm_engine.py:1] Initializing an LLM engine (v0.6.3) with config: model='m'\n"
           "ValueError: LoRA rank 64 is greater than max_lora_rank 16.")
    d = diagnose(log, book=book).best
    assert d.caveats and "0.6.3" in d.caveats[0] and ">=0.8" in d.caveats[0]
    assert d.confidence < 0.95
    assert not diagnose("ValueError: LoRA rank 64 is greater than max_lora_rank 16.", book=book).best.caveats


def test_reworded_message_matches_by_fuzzy_score(book):
    r = diagnose("ValueError: No available memory for the KV cache blocks. Try increasing "
                 "`gpu_memory_utilization` when initializing the engine.", book=book)
    assert r.best.rule_id == "no-cache-memory" and r.best.matched_by == "fuzzy"
    assert 0.5 <= r.best.confidence < 0.95


def test_unknown_error_abstains_with_next_step(book):
    r = diagnose("Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'rope_theta'", book=book)
    assert r.diagnoses == [] and r.verdict == "unsure"
    assert "KeyError: 'rope_theta'" in r.next_step and "minimal repro" in r.next_step


def test_healthy_log_has_no_error(book):
    r = diagnose("INFO 01-01 00:00:00 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000\n"
                 "INFO:     Application startup complete.", book=book)
    assert r.verdict == "no_error" and r.diagnoses == [] and r.root is None


def test_tail_rule_only_when_the_log_ends_there(book):
    bar = "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  20%|██  | 7/35 [00:01<00:05]"
    assert ids(diagnose("INFO start\n" + bar, book=book)) == ["capture-hang"]
    assert ids(diagnose(bar + "\nINFO Graph capturing finished in 9 secs\nINFO ready\nINFO serving\nINFO ok", book=book)) == []


def test_shadow_rules_are_recorded_not_shown(book):
    r = diagnose("RuntimeError: Something brand new happened", book=book)
    assert r.diagnoses == [] and [d.rule_id for d in r.shadow] == ["shadow-rule"]


def test_slack_escaped_paste_in_a_code_fence(book):
    r = diagnose("it broke:\n```(EngineCore_DP0 pid=5) ERROR 11-09 12:00:00 [core.py:1] ValueError: LoRA rank 8 "
                 "is greater than max_lora_rank 4 &amp;&amp; more```", book=book)
    assert ids(r) == ["lora-rank"]


def test_huge_and_hostile_inputs_answer(book):
    r = diagnose(b"\x00\xff" * 3_000_000, book=book)
    assert r.verdict in ("no_error", "unsure")
    big = ("INFO 01-01 00:00:00 [x.py:1] " + "a" * 200 + "\n") * 60000 + KV + "\n"
    r = diagnose(big, book=book)
    assert r.best.rule_id == "no-cache-memory" and any("MB" in n for n in r.notes)


def test_another_programs_log_gets_no_vllm_diagnosis(book):
    flask = ("Traceback (most recent call last):\n"
             '  File "./server.py", line 295, in <module>\n'
             "    app.run(host='0.0.0.0')\n"
             '  File "/usr/lib/python3/dist-packages/werkzeug/serving.py", line 1052, in run_simple\n'
             "    inner()\n"
             "ValueError: No available memory for the cache blocks.\n")
    r = diagnose(flask, book=book)
    assert r.diagnoses == [] and r.verdict == "unsure" and "not from vLLM" in r.next_step
    from_vllm = flask.replace("/usr/lib/python3/dist-packages/werkzeug", "/usr/lib/python3/dist-packages/vllm/worker")
    assert ids(diagnose(from_vllm, book=book)) == ["no-cache-memory"]


def test_warnings_are_never_the_root_of_a_healthy_log(book):
    log = ("WARNING 11-09 12:00:00 [symm_mem.py:1] SymmMemCommunicator: Device capability 8.6 not supported\n"
           "INFO 11-09 12:00:01 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000\n")
    r = diagnose(log, book=book)
    assert r.verdict == "no_error" and r.root is None


def test_a_wrapper_with_an_unknown_error_above_quotes_that_error(book):
    log = ("(EngineCore_DP0 pid=5) ERROR 11-09 12:00:00 [core.py:1] KeyError: 'rope_theta'\n" + WRAPPER)
    r = diagnose(log, book=book)
    assert ids(r) == [] and r.verdict == "unsure"          # the wrapper is not the answer
    assert "KeyError: 'rope_theta'" in r.next_step and r.root.line_no == 1


def test_the_traceback_a_wrapper_record_prints_after_it_is_its_cause(book):
    # logger.exception prints the message first, then the traceback that caused it, same header.
    head = "(APIServer pid=9) ERROR 09-15 08:02:41 [registry.py:449] "
    log = (head + "Engine core initialization failed. See root cause above.\n"
           + head + "Traceback (most recent call last):\n"
           + head + '  File "/x/vllm/models/registry.py", line 1, in load\n'
           + head + "ModuleNotFoundError: No module named 'vllm_ascend.models.interfaces'\n")
    r = diagnose(log, book=book)
    assert ids(r) == [] and r.verdict == "unsure" and "vllm_ascend.models.interfaces" in r.next_step
    # An error printed later under another header is not what the wrapper pointed to.
    later = log.replace(head + "ModuleNotFoundError", "(APIServer pid=9) ERROR 09-15 08:02:42 [api.py:1] ModuleNotFoundError")
    assert ids(diagnose(later, book=book)) == ["engine-wrapper"]


def test_an_error_of_an_earlier_run_or_a_warning_does_not_explain_a_wrapper(book):
    first_run = ("INFO 04-01 10:00:00 api_server.py:2] args: Namespace(model='m')\n"
                 "KeyError: 'rope_theta'\n")
    second_run = "INFO 04-01 10:05:00 api_server.py:2] args: Namespace(model='m')\n" + WRAPPER
    r = diagnose(first_run + second_run, book=book)
    assert ids(r) == ["engine-wrapper"] and r.verdict == "wrapper_only"
    warned = "FutureWarning: `resume_download` is deprecated\n" + WRAPPER
    assert diagnose(warned, book=book).verdict == "wrapper_only"


def test_a_paste_from_wsl2_keeps_the_rules_wsl_paragraph_and_no_other_does(book):
    from pathlib import Path
    from bot.learn.fixtures import read
    logs = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
    def body(name):
        data = read(logs / name).data
        return data.decode() if isinstance(data, bytes) else data
    triton = body("triton-libcuda-missing/stack-vllm12505-ld-cannot-find-lcuda-docker-v070.log")
    wsl = body("stack-error-code/bare-genesis114-wsl2-cuinit-no-device.log").split("\n")[0]   # "... under wsl2 ..."
    plain = diagnose(triton).diagnoses[0]
    under_wsl = diagnose(wsl + "\n" + triton).diagnoses[0]
    assert plain.rule_id == under_wsl.rule_id == "triton-libcuda-missing"
    assert "/usr/lib/wsl/lib" not in plain.fix and "TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib" in under_wsl.fix


STOP = "(APIServer pid=7) INFO 12-06 13:42:16 [launcher.py:254] [shutdown] API server: shutdown triggered\n"
DEAD = ("(APIServer pid=7) ERROR 12-06 13:42:16 [async_llm.py:906] vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
        "encountered an issue. See stack trace (above) for the root cause.\n")


def test_what_a_stopped_run_prints_is_its_teardown_until_the_next_run_starts(book):
    # Ctrl-C or docker stop on a server: the front-end then reports its engine dead; neither an answer nor the first error
    stopped = diagnose(STOP + DEAD + "SystemExit: \n", book=book)
    assert stopped.diagnoses == [] and stopped.verdict == "no_error"
    # the run started after it is another run: its error is the paste's
    start = "(APIServer pid=9) INFO 12-06 13:50:00 [api_utils.py:286] non-default args: {'model': '/m'}\n"
    again = diagnose(STOP + DEAD + start + f"(EngineCore_DP0 pid=10) ERROR 12-06 13:50:09 [core.py:1] {KV}\n", book=book)
    assert ids(again) == ["no-cache-memory"]


def test_an_exit_is_never_the_first_error(book):
    for exit_line in ("SystemExit: ", "KeyboardInterrupt", "SystemExit: 0"):
        assert diagnose(f"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n{exit_line}\n",
                        book=book).verdict == "no_error"


def test_vllm_dump_of_a_failed_steps_inputs_is_never_the_root(book):
    # dump_input.py logs the batch at ERROR before the step's traceback: the error is what follows it
    dump = ("(EngineCore pid=198) ERROR 08-03 09:26:14 [dump_input.py:79] Dumping scheduler output for model execution: "
            "SchedulerOutput(scheduled_new_reqs=[], num_scheduled_tokens={a: 790}, total_num_scheduled_tokens=790)\n"
            "(EngineCore pid=198) ERROR 08-03 09:26:14 [dump_input.py:81] Dumping scheduler stats: "
            "SchedulerStats(num_running_reqs=1, num_waiting_reqs=0)\n")
    only = diagnose(dump, book=book)
    assert only.verdict == "no_error" and only.root is None
    err = ("(EngineCore pid=198) ERROR 08-03 09:26:14 [core.py:1138] SomeKernelError: the kernel stopped\n")
    r = diagnose(dump + err, book=book)
    assert r.root is not None and r.root.line_no == 3


def test_the_first_errors_line_is_the_pastes_own_after_a_progress_bars_carriage_returns(book):
    start = "INFO 01-01 00:00:00 [llm_engine.py:1] Initializing an LLM engine (v0.5.3) with config: model='/m'\n"
    r = diagnose(start + "Loading: 10%\rLoading: 50%\rLoading: 100%\nValueError: something odd\n", book=book)
    assert r.root.line_no == 3 and "(line 3)" in r.next_step
    assert diagnose(start + KV + "\n", book=book).diagnoses[0].line_no == 2
    assert diagnose(start + "a\rb\rc\n" + KV + "\n", book=book).diagnoses[0].line_no == 3


def test_a_weight_loaders_bare_assert_is_the_shape_check_only_where_the_paste_shows_it():
    # vllm/model_executor/layers/linear.py's weight_loader also asserts the shard id: that is no checkpoint's shape
    frame = ('Traceback (most recent call last):\n'
             '  File "/usr/lib/python3.12/site-packages/vllm/model_executor/models/llama.py", line 500, in load_weights\n'
             '    weight_loader(param, loaded_weight, shard_id)\n'
             '  File "/usr/lib/python3.12/site-packages/vllm/model_executor/layers/linear.py", line 821, in weight_loader\n'
             '    {}\n'
             'AssertionError\n')
    shape = diagnose(frame.format("assert param_data.shape == loaded_weight.shape"))      # the real rule book
    shard = diagnose(frame.format("assert loaded_shard_id < len(self.output_sizes)"))
    assert ids(shape)[:1] == ["weights-shape-mismatch"]
    assert "weights-shape-mismatch" not in ids(shard)


_PIP_BUILD_HEAD = """Building wheels for collected packages: flash-attn
  Building wheel for flash-attn (setup.py) ... error
  error: subprocess-exited-with-error

  × python setup.py bdist_wheel did not run successfully.
  │ exit code: 1
  ╰─> [40 lines of output]
      running build_ext
      [1/49] /usr/local/cuda/bin/nvcc -c csrc/flash_api.cu -o build/flash_api.o
      FAILED: /tmp/pip-install-abc/flash-attn/build/temp.linux-x86_64-cpython-310/csrc/flash_api.o
      /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -c csrc/flash_api.cu -o build/flash_api.o
"""
_PIP_BUILD_RAISED = """      ninja: build stopped: subcommand failed.
      Traceback (most recent call last):
        File "/usr/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 2100, in _run_ninja_build
          subprocess.run(
      subprocess.CalledProcessError: Command '['ninja', '-v', '-j', '8']' returned non-zero exit status 1.
"""
_PIP_BUILD_TAIL = """      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
  ERROR: Failed building wheel for flash-attn
Failed to build flash-attn
ERROR: Could not build wheels for flash-attn, which is required to install pyproject.toml-based projects
"""


def test_in_a_failed_build_the_compiler_s_own_error_is_the_root_not_pip_s_closing(book):
    compilers = {
        "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n": "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
        "csrc/flash_api.cu:8:10: fatal error: cuda_runtime.h: No such file or directory\n"
        "      compilation terminated.\n": "csrc/flash_api.cu:8:10: fatal error: cuda_runtime.h: No such file or directory",
        "g++: fatal error: Killed signal terminated program cc1plus\n": "g++: fatal error: Killed signal terminated program cc1plus",
        'csrc/flash.h(12): error: identifier "__hfma2" is undefined\n': 'csrc/flash.h(12): error: identifier "__hfma2" is undefined',
    }
    for line, root in compilers.items():
        for raised in (_PIP_BUILD_RAISED, "      ninja: build stopped: subcommand failed.\n"):
            log = _PIP_BUILD_HEAD + "      " + line + raised + _PIP_BUILD_TAIL
            r = diagnose(log, book=book)
            assert r.verdict == "unsure" and r.root.text.startswith(root), (line, r.root)
            assert r.root.line_no == 12
    # no compiler's words: ninja's failed step is the first error, above pip's closing and the runner's exception
    r = diagnose(_PIP_BUILD_HEAD + _PIP_BUILD_RAISED + _PIP_BUILD_TAIL, book=book)
    assert r.root.text.startswith("FAILED: /tmp/pip-install-abc/") and r.root.line_no == 10


def test_a_build_that_failed_before_compiling_keeps_its_own_exception_as_the_root(book):
    # setup.py's own error comes first: the compiler line a later step printed is not the build's first error
    log = ("  error: subprocess-exited-with-error\n"
           "  ╰─> [9 lines of output]\n"
           "      Traceback (most recent call last):\n"
           '        File "setup.py", line 3, in <module>\n'
           "          import torch\n"
           "      ModuleNotFoundError: No module named 'torch'\n"
           "      x.c:1:10: fatal error: Python.h: No such file or directory\n"
           "      [end of output]\n"
           "  ERROR: Failed building wheel for x\n")
    assert diagnose(log, book=book).root.text.startswith("ModuleNotFoundError: No module named 'torch'")
    # a compiler's line where no build is shown failing: the usual order (the exception first)
    other = "RuntimeError: boom\nx.c:1:10: fatal error: Python.h: No such file or directory\n"
    assert diagnose(other, book=book).root.text.startswith("RuntimeError: boom")


START_FAILED = "(EngineCore_DP0 pid=77) ERROR 05-17 10:00:09 [core.py:708] EngineCore failed to start.\n"


@pytest.mark.parametrize("native", [
    "[node1:77:0:77] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)",
    "!!!!!!! Segfault encountered !!!!!!!",
    "Fatal Python error: Segmentation fault",
])
def test_a_native_crash_above_the_engines_error_record_of_its_death_is_the_first_error(book, native):
    # UCX's, tvm_ffi's and CPython's report of a SIGSEGV, then the ERROR record vLLM logs as the engine gives up (its
    # traceback cut off): the record reports the crash, it is not the first error
    log = ("(EngineCore_DP0 pid=77) INFO 05-17 10:00:05 [gpu_model_runner.py:1] Starting to load model /m...\n"
           f"{native}\n  File \"<unknown>\", line 0, in 0x00007f0000000001\n{START_FAILED}")
    r = diagnose(log, book=book)
    assert r.verdict == "unsure" and r.root.text == native and r.root.line_no == 2
    # an exception above the native line is still the first error
    exc = "(EngineCore_DP0 pid=77) ERROR 05-17 10:00:04 [core.py:1] SomeKernelError: the kernel stopped\n"
    assert diagnose(exc + log, book=book).root.line_no == 1


IGNORED = ("Exception ignored in: <function LLM.__del__ at 0x7fef2c991090>\n"
           "Traceback (most recent call last):\n"
           "  File \"/root/vllm/vllm/entrypoints/llm.py\", line 236, in __del__\n"
           "    if self.llm_engine and hasattr(self.llm_engine, \"shutdown\"):\n"
           "{exc}\n")


def test_an_exception_python_ignored_in_a_destructor_is_no_root_beside_another_error(book):
    noise = IGNORED.format(exc="AttributeError: 'LLM' object has no attribute 'llm_engine'")
    r = diagnose(noise + f"(EngineCore_DP0 pid=5) ERROR 11-09 12:00:00 [core.py:1] {KV}\n", book=book)
    assert ids(r) == ["no-cache-memory"] and r.verdict == "diagnosed" and r.root.line_no == 6
    # nor beside an error no rule knows, nor above an ERROR record with no exception
    unknown = diagnose(noise + "SomeKernelError: the kernel stopped\n", book=book)
    assert unknown.root.text == "SomeKernelError: the kernel stopped"
    assert diagnose(noise + START_FAILED, book=book).root.text == "EngineCore failed to start."


def test_an_exception_python_ignored_alone_is_at_most_a_weak_answer(book):
    # the paste shows nothing else (the real error cut off): what a rule knows of it is shown, never "diagnosed"
    r = diagnose(IGNORED.format(exc=KV), book=book)
    assert ids(r) == ["no-cache-memory"] and r.diagnoses[0].confidence <= 0.55 and r.verdict == "unsure"
    assert r.root.line_no == 5 and "Exception ignored in" in r.next_step
    # no rule knows it: quoted, with a word on what Python's "Exception ignored" means
    alone = diagnose(IGNORED.format(exc="TypeError: 'NoneType' object is not callable"), book=book)
    assert alone.diagnoses == [] and alone.root.line_no == 5 and "cut from the paste" in alone.next_step
    assert "cut from the paste" not in diagnose("SomeKernelError: the kernel stopped\n", book=book).next_step


def test_a_bare_line_in_vllms_own_words_gets_the_rule_not_the_index_family():
    # config-json-missing asks for vLLM's context; a bare line the index knows as vLLM's own raise shows it
    bare = "ValueError: No supported config format found in meta-llama/Llama-3.3-70B-Instruct"
    r = diagnose(bare)
    assert ids(r) == ["config-json-missing"] and r.verdict == "diagnosed"
    assert ids(diagnose("TimeoutError: RPC call to execute_model timed out.")) == ["rpc-timeout"]
    # a line the index does not know as vLLM's stays out of those rules' reach
    other = diagnose("ValueError: No supported config format found")
    assert "config-json-missing" not in ids(other)


OOM_REPORT = """\
[  124.465643] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
[  124.465790] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=vd1024,mems_allowed=0,oom_memcg=/vd1024,task_memcg=/vd1024,task=python3,pid=911,uid=0
[  124.465871] Memory cgroup out of memory: Killed process 911 (python3) total-vm:7727488kB, anon-rss:626752kB, file-rss:359432kB, shmem-rss:0kB, UID:0 pgtables:3652kB oom_score_adj:0
"""


def test_a_report_over_several_lines_fills_in_what_its_first_line_left_unsaid():
    """The kernel's OOM report: the first line the rule knows names no process, the next ones the pid, the cgroup and
    the victim's anon-rss; a capture the text only asks about ({?memcg}) may be worded differently on each."""
    d = diagnose(OOM_REPORT).best
    assert d.rule_id == "os-oom-killed" and d.line_no == 1
    assert {k: d.captures.get(k) for k in ("pid", "process", "anon_rss_kb", "victim_adj")} == \
        {"pid": "911", "process": "python3", "anon_rss_kb": "626752", "victim_adj": "0"}
    assert "612 MiB" in d.cause and "memory cgroup's limit" in d.cause and "That is little" not in d.cause


def test_a_later_line_of_another_report_adds_nothing():
    other = OOM_REPORT.split("\n")[:2] + [
        "[  130.100000] Memory cgroup out of memory: Killed process 977 (python3) total-vm:7727488kB, anon-rss:1kB"]
    d = diagnose("\n".join(other)).best
    assert d.captures.get("pid") == "911" and "anon_rss_kb" not in d.captures


def test_an_engine_core_that_died_starting_without_a_word_is_answered_as_its_death():
    """The start-up wrapper with nothing above it to point at (the engine core's lines from its start, none an error):
    the engine core's silent death, not "paste the lines above"; the wrapper alone still asks for them."""
    start = ("INFO 12-07 09:15:00 [api_utils.py:273] non-default args: {'model': '/models/tiny'}\n"
             "(EngineCore pid=1752) INFO 12-07 09:15:00 [core.py:116] Initializing a V1 LLM engine (v0.26.0) with "
             "config: model='/models/tiny'\n"
             "(EngineCore pid=1752) INFO 12-07 09:15:03 [model_runner.py:305] Model loading took 0.01 GiB\n")
    wrapper = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
    r = diagnose(start + wrapper)
    assert ids(r)[0] == "engine-core-died" and r.verdict == "diagnosed"
    assert "EngineCore pid=1752" in r.best.cause and "died while starting" in r.best.cause
    alone = diagnose(wrapper)
    assert ids(alone) == ["engine-core-init-failed"] and alone.verdict == "wrapper_only"


def test_a_container_compose_killed_after_the_user_s_ctrl_c_is_no_oom():
    # `docker compose up` given Ctrl-C stops the containers: SIGTERM, then SIGKILL past its timeout (exit status 137)
    paste = ("vllm-1  | INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version 0.8.5\n"
             "vllm-1  | INFO:     Application startup complete.\n"
             "Gracefully stopping... (press Ctrl+C again to force)\n"
             "vllm-1 exited with code 137\n")
    report = diagnose(paste)
    assert report.verdict != "diagnosed"
    assert diagnose(paste.replace("Gracefully stopping... (press Ctrl+C again to force)\n", "")).diagnoses[0].rule_id \
        == "os-oom-killed"


def test_a_paste_cut_inside_a_traceback_says_so_and_asks_for_the_rest(book):
    # vllm#3222 as pasted: frames without their "Traceback" line, the exception the title names cut off
    frames = "".join(f"{line}\n" for line in (
        "engine = AsyncLLMEngine.from_engine_args(engine_args)",
        '  File "/x/vllm/engine/llm_engine.py", line 118, in __init__',
        "    self._init_workers_ray(placement_group)",
        '  File "/x/vllm/worker/worker.py", line 275, in init_distributed_environment'))
    r = diagnose(frames, book=book)
    assert r.verdict == "unsure" and r.root.line_no == 4 and r.root.text.startswith('File "/x/vllm/worker/worker.py"')
    assert r.next_step.startswith("Your paste ends inside a traceback")
    # the person's sentence above it is no error of the log
    said = diagnose("Hi Im getting the following error with vllm 0.3.2  on A100\n\n" + frames, book=book)
    assert said.root.line_no == 6 and "Hi Im getting" not in said.next_step
    # a message of the log above it stays the first error, and the reply adds that the traceback below is cut
    bnb = "Failed to initialize NumPy: _ARRAY_API not found\n"
    above = diagnose(bnb + frames, book=book)
    assert above.root.line_no == 1 and "ends inside a traceback (its last frame is line 5)" in above.next_step
    # a traceback with its exception is read as ever
    done = diagnose(frames + "ValueError: No available memory for the cache blocks.\n", book=book)
    assert "ends inside a traceback" not in done.next_step
