"""The crash site named where the first error is a native crash no rule answers (answering/crash_site.py), read
through the whole pipeline: the site joins the report's next step."""

from bot.diagnose import diagnose


def test_a_fatal_signal_names_the_package_whose_code_crashed_without_claiming_a_cause(book):
    from tests.diagnose.reading.test_tracebacks import FAULT
    start = "INFO 01-01 00:00:00 [llm_engine.py:1] Initializing an LLM engine (v0.5.3) with config: model='/m'\n"
    r = diagnose(start + FAULT, book=book)
    assert r.verdict == "unsure" and r.diagnoses == []
    # torch's dispatch is the way in, not the package: vLLM's own kernel call is
    assert "`paged_attention_v1` (`vllm/_custom_ops.py`, line 41), `vllm`'s" in r.next_step
    assert "torch/_ops.py" not in r.next_step
    zh = diagnose(start + FAULT, "zh", book=book)
    assert "属于 `vllm`" in zh.next_step
    # nothing is added where the first error is not a fatal signal
    assert "compiled code" not in diagnose(start + "ValueError: something odd\n", book=book).next_step


def test_a_crash_report_names_the_native_function_its_pc_line_names_without_claiming_a_cause(book):
    from tests.diagnose.reading.test_tracebacks import ABSL
    r = diagnose(ABSL, book=book)
    assert r.verdict == "unsure" and r.diagnoses == [] and r.root.line_no == 1
    assert "the crash report's `PC:` line names `addProxyOpIfNeeded`, the function the signal struck" in r.next_step
    assert "NCCL" not in r.next_step          # a plain C name says no library
    # a name that carries its library's prefix says it
    torch = diagnose(ABSL.replace("addProxyOpIfNeeded()", "c10::cuda::CUDACachingAllocator::malloc()"), book=book)
    assert "`c10::cuda::CUDACachingAllocator::malloc`, PyTorch's" in torch.next_step
    assert "`PC:`" in diagnose(ABSL, "zh", book=book).next_step
    # another program's crash report (nothing shows vLLM) stays unanswered
    other = ABSL.replace("RayWorkerWrapper", "RayTrainWorker")
    assert "`PC:`" not in diagnose(other, book=book).next_step
    assert "`PC:`" not in diagnose(ABSL + 'Traceback (most recent call last):\n  File "/site-packages/mytrainer/a.py", '
                                   'line 1, in f\n  File "/site-packages/mytrainer/b.py", line 2, in g\n'
                                   'ValueError: x\n', book=book).next_step


def test_a_crash_report_that_names_no_function_yields_to_faulthandlers_report_of_the_same_crash(book):
    from tests.diagnose.reading.test_tracebacks import FAULT
    # abseil's banner with every frame "(unknown)", then faulthandler's report (Ray's workers and vLLM enable both)
    absl = ("(RayWorkerWrapper pid=5993) *** SIGSEGV received at time=1722289279 on cpu 61 ***\n"
            "(RayWorkerWrapper pid=5993) PC: @     0x7f3c5f628350  (unknown)  (unknown)\n"
            "(RayWorkerWrapper pid=5993)     @     0x7f3c945c8630  (unknown)  (unknown)\n")
    r = diagnose(absl + FAULT, book=book)
    assert r.verdict == "unsure" and r.diagnoses == [] and r.root.line_no == 1
    assert "`paged_attention_v1` (`vllm/_custom_ops.py`, line 41), `vllm`'s" in r.next_step
    # a faulthandler report far below the banner is not the same crash's
    far = absl + "".join(f"INFO 01-01 00:00:{i % 60:02d} [llm_engine.py:1] step {i}\n" for i in range(80)) + FAULT
    assert "paged_attention_v1" not in diagnose(far, book=book).next_step


TVM = ("!!!!!!! Segfault encountered !!!!!!!\n"
       '  File "<unknown>", line 0, in cudaMemcpyAsync\n'
       '  File "<unknown>", line 0, in swap_blocks(at::Tensor&, at::Tensor&, long, at::Tensor const&)\n'
       '  File "<unknown>", line 0, in c10::Dispatcher::callBoxed(c10::OperatorHandle const&) const\n')


def test_tvm_ffis_crash_report_is_the_first_error_and_names_the_cuda_call_with_its_caller(book):
    r = diagnose(TVM, book=book)
    # its frames are native ones written Python's way: no Python program's traceback, and the banner is the error
    assert r.verdict == "unsure" and r.diagnoses == [] and r.root.line_no == 1
    assert "`cudaMemcpyAsync`, the CUDA runtime's, called from `swap_blocks`" in r.next_step
    assert "由 `swap_blocks` 调用" in diagnose(TVM, "zh", book=book).next_step
    # a function of no library it knows is named alone
    plain = diagnose(TVM.replace("cudaMemcpyAsync", "topk_kernel"), book=book)
    assert "names is `topk_kernel`, the one the signal struck" in plain.next_step


UCX = ("INFO 07-03 20:47:11 [chat_utils.py:420] Detected the chat template content format to be 'string'.\n"
       "[host-1:34560:0:34983] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address "
       "0x7fd2ba008000)\n"
       "==== backtrace (tid:  34983) ====\n"
       " 0  /venv/site-packages/nixl.libs/libucs-97f10f8d.so.0.0.0(ucs_handle_error+0x294) [0x7fe52007cba4]\n"
       " 1  /venv/site-packages/nixl.libs/libucs-97f10f8d.so.0.0.0(+0x38d65) [0x7fe52007cd65]\n"
       " 2  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7a8858a42520]\n"
       " 3  /venv/site-packages/nixl.libs/libuct-b36f5a30.so.0.0.0(uct_tcp_ep_am_bcopy+0x8a) [0x7a843804504a]\n"
       "=================================\n")


def test_ucxs_crash_report_is_the_first_error_and_names_the_first_function_below_its_handler(book):
    r = diagnose(UCX, book=book)
    assert r.verdict == "unsure" and r.diagnoses == [] and r.root.line_no == 2
    assert "names is `uct_tcp_ep_am_bcopy`, UCX's" in r.next_step
    # the detailed format ("%2d 0x%016lx %s()  %s:%u") reads the same; its handler's frames are skipped
    detailed = UCX.replace(" 3  /venv/site-packages/nixl.libs/libuct-b36f5a30.so.0.0.0(uct_tcp_ep_am_bcopy+0x8a) "
                           "[0x7a843804504a]", " 3 0x0000000000049b8a ncclMemoryPoolAlloc()  /src/include/utils.h:280")
    assert "names is `ncclMemoryPoolAlloc`, NCCL's" in diagnose(detailed, book=book).next_step
    # another program's report (nothing shows vLLM) stays unanswered
    assert "compiled code" not in diagnose(UCX.split("\n", 1)[1], book=book).next_step
