"""The shipped stack index answers known facts: error codes, the OS, pins, drivers, ABI, caches,
transformers' tables and the stack's raise sites. No network: only the data file is read."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge.stack import stack_index as stack


@pytest.fixture(scope="module")
def ix():
    found = stack.load()
    assert found is not None, "bot/diagnose/knowledge/stack/data/ is missing"
    return found


def test_a_table_is_read_from_its_marshal_copy_until_its_file_changes(tmp_path, monkeypatch):
    import gzip
    import json
    import os
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = tmp_path / "nccl.json.gz"
    table.write_bytes((stack.DATA_DIR / "nccl.json.gz").read_bytes())
    shipped = json.loads(gzip.decompress(table.read_bytes()))
    assert stack._read_block(table) == shipped                              # parsed, and kept
    assert list((tmp_path / "cache" / "vllm-doctor").glob("stack-block-*.marshal"))
    assert stack._read_block(table) == shipped                              # from the copy
    table.write_bytes(gzip.compress(json.dumps({"codes": []}).encode()))
    os.utime(table, ns=(1, 1))
    assert stack._read_block(table) == {"codes": []}                        # the file changed: read again
    monkeypatch.setenv("XDG_CACHE_HOME", str(table))                        # a cache folder that cannot be made
    assert stack._read_block(table) == {"codes": []}


def test_cuda_runtime_codes_by_number_name_and_text(ix):
    assert ix.cuda_error(35).text == "CUDA driver version is insufficient for CUDA runtime version"
    assert ix.cuda_error(35).name == "cudaErrorInsufficientDriver"
    assert ix.cuda_error(802).text == "system not yet initialized"
    assert ix.cuda_error(804).name == "cudaErrorCompatNotSupportedOnDevice"
    assert ix.cuda_error("CUDA error: forward compatibility was attempted on non supported HW").number == 804
    assert ix.cuda_error("cudaErrorNoDevice").number == 100


def test_a_driver_code_reads_the_runtime_text_of_its_number(ix):
    rec = ix.cuda_error("CUDA_ERROR_NO_DEVICE")
    assert (rec.api, rec.number, rec.runtime_name) == ("driver", 100, "cudaErrorNoDevice")
    assert rec.text == "no CUDA-capable device is detected"
    assert ix.cuda_error(3, api="driver").name == "CUDA_ERROR_NOT_INITIALIZED"


def test_nccl_codes_with_torchs_line(ix):
    rec = ix.nccl(2)
    assert rec.name == "ncclSystemError"
    assert rec.text.startswith("unhandled system error")
    assert rec.torch_detail.startswith("ncclSystemError: System call (e.g. socket, malloc)")
    line = "NCCL error in: ProcessGroupNCCL.cpp:3690, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.7"
    assert ix.nccl(line).number == 2


def test_nvml_codes_and_pynvml_classes(ix):
    rec = ix.nvml("NVMLError_DriverNotLoaded")
    assert (rec.number, rec.name, rec.text) == (9, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded")
    assert ix.nvml(999).exception == "NVMLError_Unknown"


def test_codes_in_a_log_line(ix):
    hits = ix.codes_in("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert [(h.kind, h.record.number, h.by) for h in hits] == [("cuda", 209, "text")]
    hits = ix.codes_in("UserWarning: CUDA initialization: Error 804: forward compatibility was attempted on non supported HW")
    assert hits and hits[0].record.number == 804
    # torch's own words for a code it does not name (c10's device count)
    hits = ix.codes_in("UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu.")
    assert hits[0].record.name == "cudaErrorInitializationError"
    assert ix.codes_in("ValueError: invalid argument") == []           # no library named on the line
    assert ix.codes_in("triton: CUDA_ERROR_OUT_OF_MEMORY")[0].record.number == 2
    # torch.cuda.nccl's "NCCL Error <result>: <ncclGetErrorString>": the number is NCCL's result, not a CUDA error
    assert [h.kind for h in ix.codes_in("RuntimeError: NCCL Error 1: unhandled cuda error") if h.kind == "cuda"] == []
    # the CUDA samples' check, its text after "->" (the next line, joined onto it in a message)
    assert ix.codes_in("cudaGetDeviceCount returned 100 -> no CUDA-capable device is detected")[0].record.number == 100
    assert ix.codes_in("cudaGetDeviceProperties returned 802 -> system not yet initialized")[0].record.number == 802
    assert ix.codes_in("cudaGetDeviceCount returned 8") == []            # a count, not a code


def test_an_aclnn_operators_code_is_read_where_torch_npu_names_the_operator(ix):
    # CANN's operator API (aclnn) codes, as torch_npu's check prints them: the operator's own table, not ACL's
    hits = ix.codes_in("RuntimeError: normal_:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:37 NPU function error: "
                       "call aclnnInplaceNormal failed, error code is 561103")
    assert [(h.kind, h.record.name) for h in hits] == [("aclnn", "ACLNN_ERR_INNER_NULLPTR")]
    assert ix.codes_in("call aclnnGroupedMatmulV5 failed, error code is 161002")[0].record.name == "ACLNN_ERR_PARAM_INVALID"
    # an aclnn code the table does not hold is left to the other forms (torch_npu's ERR code beside it)
    assert all(h.kind != "aclnn" for h in ix.codes_in("call aclnnX failed, error code is 569999"))
    # an ACL call's code stays ACL's
    assert ix.codes_in("NPU function error: aclrtSetDevice(device), error code is 507033")[0].kind == "acl"


def test_level_zero_code_shortened_after_the_call(ix):
    # an issue title's "zeMemOpenIpcHandle (INVALID_ARGUMENT)" for oneCCL's "code: ZE_RESULT_ERROR_INVALID_ARGUMENT"
    hits = ix.codes_in("TP2 on 2xB70 fails at zeMemOpenIpcHandle (INVALID_ARGUMENT) even with the exact params")
    assert [(h.kind, h.record.name) for h in hits] == [("level_zero", "ZE_RESULT_ERROR_INVALID_ARGUMENT")]
    hits = ix.codes_in("ze error at zeMemOpenIpcHandle, code: ZE_RESULT_ERROR_INVALID_ARGUMENT")
    assert [h.record.name for h in hits] == ["ZE_RESULT_ERROR_INVALID_ARGUMENT"]        # once, by its full name
    assert ix.codes_in("zeInit SOME_WORDS here") == []                  # words no Level Zero code has


def test_math_library_statuses_by_name(ix):
    rec = ix.library_status("CUBLAS_STATUS_EXECUTION_FAILED")
    assert (rec.library, rec.label, rec.number) == ("cublas", "cuBLAS", 13)
    assert rec.text == "the function failed to launch on the GPU"          # cublasGetStatusString's
    assert "nvidia-cublas" in rec.source and "cudnn" not in rec.source
    # cuDNN 9 renumbered cuDNN 8's statuses: the newest number, and each release's
    rec = ix.library_status("cudnn_status_mapping_error")
    assert rec.number == 4006 and rec.deprecated and [n for _, n in rec.numbers] == [7, 4006]
    assert ix.library_status("CUDNN_STATUS_NOT_INITIALIZED").text == "cuDNN library not initialized"
    assert ix.library_status("CURAND_STATUS_VERSION_MISMATCH").number == 100
    assert ix.library_status("CUFFT_INTERNAL_ERROR").number == 5
    assert ix.library_status("CUSOLVER_STATUS_EXECUTION_FAILED").label == "cuSOLVER"
    assert ix.library_status("CUBLAS_STATUS_NO_SUCH_THING") is None


def test_a_math_library_status_in_a_log_line(ix):
    line = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, "
            "opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, ...)`")
    assert [(h.kind, h.record.name, h.by) for h in ix.codes_in(line)] == [("cublas", "CUBLAS_STATUS_NOT_SUPPORTED", "name")]
    assert [h.kind for h in ix.codes_in("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED")] == ["cudnn"]
    assert [h.kind for h in ix.codes_in("cuFFT error: CUFFT_INTERNAL_ERROR")] == ["cufft"]
    # cuFFT's other constants (transform types) are not statuses
    assert ix.codes_in("plan = cufftPlan1d(n, CUFFT_R2C, 1)") == []


def test_errno(ix):
    assert (ix.errno(28).name, ix.errno(28).strerror) == ("ENOSPC", "No space left on device")
    assert ix.errno(13).exception == "PermissionError"
    assert ix.errno("EMFILE").number == 24
    assert ix.errno("Too many open files").number == 24
    assert ix.errno_in("OSError: [Errno 28] No space left on device: '/tmp/x'").number == 28
    assert ix.errno_in("zmq.error.ZMQError: Too many open files (src/epoll.cpp:38)").name == "EMFILE"
    assert ix.errno(2).exception == "FileNotFoundError"
    # c10's allocator words it "Error code N (strerror)"; an HTTP client's "Error code: 400" is not an errno
    assert ix.errno_in("DefaultCPUAllocator: can't allocate memory: you tried to allocate 42 bytes. "
                       "Error code 12 (Cannot allocate memory)").name == "ENOMEM"
    assert ix.errno_in("openai.BadRequestError: Error code: 400 - {'object': 'error'}") is None


def test_errno_numbered_by_another_os(ix):
    # macOS and the BSDs number errnos otherwise than Linux: the text beside the number names it
    assert ix.errno_in("BlockingIOError: [Errno 35] Resource temporarily unavailable").name == "EAGAIN"
    assert ix.errno_in("ConnectionRefusedError: [Errno 61] Connection refused").name == "ECONNREFUSED"
    assert ix.errno_in("OSError: [Errno 49] Can't assign requested address").name == "EADDRNOTAVAIL"
    assert ix.errno_in("(errno: 61 - Connection refused)").name == "ECONNREFUSED"
    # English words the table does not hold: neither the number nor the text can be trusted
    assert ix.errno_in("TimeoutError: [Errno 60] Operation timed out") is None
    # the number's own text, in uvicorn's lower case, or a text in another language: the number stands
    assert ix.errno_in("[Errno 99] error while attempting to bind on address ('::1', 8000, 0, 0): "
                       "cannot assign requested address").name == "EADDRNOTAVAIL"
    assert ix.errno_in("PermissionError: [Errno 13] 权限不够: '/root/.cache'").name == "EACCES"
    # Rust's io::Error as Debug prints it
    assert ix.errno_in('Os { code: 13, kind: PermissionDenied, message: "Permission denied" }').name == "EACCES"


def test_signals_and_exit_codes(ix):
    kill = ix.signal(9)
    assert (kill.name, kill.exit_code, kill.returncode, kill.description) == ("SIGKILL", 137, -9, "Killed")
    assert ix.signal_for_exit(137) == kill and ix.signal_for_exit(-9) == kill
    assert ix.signal("SIGABRT").number == 6 and ix.signal("Killed") == kill
    assert ix.signal_for_exit(1) is None


def test_rlimits_with_their_ulimit_flag(ix):
    rec = ix.rlimit("RLIMIT_NOFILE")
    assert rec.ulimit_flag == "-n" and ix.rlimit("-n") == rec and ix.rlimit("NOFILE") == rec
    assert ix.rlimit("AS").ulimit_flag == "-v"


def test_loader_shapes(ix):
    [m] = ix.loader_match("ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
                          "(required by /opt/conda/lib/python3.10/site-packages/vllm/_C.abi3.so)")
    assert m.shape == "version_not_found"
    assert m.groups == {"library": "/lib/x86_64-linux-gnu/libstdc++.so.6", "version": "GLIBCXX_3.4.30",
                        "required_by": "/opt/conda/lib/python3.10/site-packages/vllm/_C.abi3.so"}
    [m] = ix.loader_match("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory")
    assert (m.shape, m.groups["library"]) == ("cannot_open", "libcudart.so.12")
    [m] = ix.loader_match("ImportError: /x/vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
    assert (m.shape, m.groups["symbol"]) == ("undefined_symbol", "_ZN3c104cuda9SetDeviceEi")
    [m] = ix.loader_match("python3: symbol lookup error: /x/_C.so: undefined symbol: _ZN3c10")
    assert m.shape == "symbol_lookup_error"          # the longer reading of the same span
    [m] = ix.loader_match("ImportError: /x/cbor2/_cbor2.cpython-311-x86_64-linux-gnu.so: failed to map segment from "
                          "shared object")
    assert (m.shape, m.groups["library"]) == ("failed_to_map", "/x/cbor2/_cbor2.cpython-311-x86_64-linux-gnu.so")
    [m] = ix.loader_match("OSError: /tmp/env/lib/libtorch.so: failed to map segment from shared object: Operation not permitted")
    assert m.groups["reason"] == "Operation not permitted"


def test_vllm_pins_and_torchs_cuda(ix):
    assert ix.pins("0.10.2")["torch"] == "==2.8.0"
    assert ix.pin("0.10.2", "transformers") == ">=4.55.2"
    assert ix.pins("v0.10.2+cu128") == ix.pins("0.10.2")
    assert ix.torch_cuda("2.8.0") == "12.8"
    assert ix.torch_cuda("2.8.0+cu126") == "12.6" and ix.torch_cuda("2.8.0+cpu") is None
    assert "0.5.0" in ix.vllm_releases() and ix.pins("0.1.0") == {}
    manifest = ix.manifest("0.10.2")
    assert (manifest["torch"], manifest["cuda"], manifest["min_driver"]) == ("2.8.0", "12.8", "525.60.13")


def test_drivers(ix):
    assert ix.min_driver("12.8") == "525.60.13"          # minor-version compatibility
    assert ix.min_driver("11.8") == "450.80.02"
    assert ix.driver_ok("470.82.01", "12.8") is False
    assert ix.driver_ok("535.104.05", "12.8") is True
    assert ix.cuda_for_driver("535.104.05") == "12.2"
    # a driver of a branch later than the newest toolkit's minimum may run toolkits the table does not know: no "up to"
    newest = max(ix._block("drivers")["toolkit"].values(), key=lambda d: [int(p) for p in d.split(".")])
    later = f"{int(newest.split('.')[0]) + 30}.10"
    assert ix.cuda_for_driver(newest) is not None and ix.cuda_for_driver(later) is None


def test_sonames_gcc_and_manylinux(ix):
    assert ix.wheel_for_soname("libcudart.so.12")[0].package == "nvidia-cuda-runtime-cu12"
    assert ix.wheel_for_soname("/usr/lib/libcudart.so.12")[0].package == "nvidia-cuda-runtime-cu12"
    assert ix.wheel_for_soname("libnccl.so.2", cuda="12.8")[0].package == "nvidia-nccl-cu12"
    assert ix.gcc_for("GLIBCXX_3.4.30") == "12.1.0"
    assert ix.gcc_for("`GLIBCXX_3.4.29'") == "11.1.0"
    assert ix.gcc_labels("9.3")["GLIBCXX"] == "3.4.28"
    policy = ix.manylinux("manylinux2014")
    assert (policy.name, policy.glibc) == ("manylinux_2_17", "2.17")
    assert ix.manylinux("manylinux_2_28_x86_64").glibc == "2.28"


def test_cache_dirs(ix):
    m = ix.cache_dir_for("/root/.cache/huggingface/hub/models--Qwen--Qwen2-7B/blobs/abc")
    assert (m.cache.variable, m.rest, m.at_default) == ("HF_HUB_CACHE", "models--Qwen--Qwen2-7B/blobs/abc", True)
    assert "HF_HOME" in m.cache.moved_by
    m = ix.cache_dir_for("OSError: [Errno 28] No space left on device: '/tmp/torchinductor_root/ab/x.py'")
    assert m.cache.variable == "TORCHINDUCTOR_CACHE_DIR"
    assert ix.cache_dir_for("/data/hf/hub/models--a--b/snapshots/1").at_default is False
    assert ix.cache_dir_for("PermissionError: [Errno 13] Permission denied: '/.cache'").cache.variable == "XDG_CACHE_HOME"
    assert ix.cache("VLLM_CACHE_ROOT").default == "~/.cache/vllm"
    assert ix.cache_dir_for("/srv/app/main.py") is None


def test_transformers_tables(ix):
    assert ix.model_type_first("qwen3") == "4.51.0"
    assert ix.has_model_type("qwen3", "4.50.3") is False and ix.has_model_type("qwen3", "4.51.3") is True
    assert ix.model_type_first("no-such-model") is None
    assert ix.gguf_arch("qwen3").first == "4.54.0"
    assert "llama" in ix.gguf_archs("4.45.0") and "tokenizer" not in ix.gguf_archs("4.45.0")


def test_pip_references_and_env_vars(ix):
    assert ix.pip_reference("subprocess-exited-with-error").exception == "InstallationSubprocessError"
    assert any(e.package == "huggingface_hub" for e in ix.env_var("HF_HUB_OFFLINE"))
    assert any(e.name == "TORCHINDUCTOR_CACHE_DIR" for e in ix.env_vars("torch"))


def test_exception_classes_and_their_bases(ix):
    [gated] = [c for c in ix.exception_class("huggingface_hub.errors.GatedRepoError") if c.package == "huggingface_hub"]
    assert gated.bases == ["RepositoryNotFoundError"]
    assert ix.exception_class("NoSuchErrorAnywhere") == []


def test_a_frame_names_its_package(ix):
    assert ix.frame_package('File "/opt/pytorch/torch/cuda/__init__.py", line 3') == ("torch", "torch/cuda/__init__.py")
    assert ix.frame_package('File "/app/serve.py", line 3') is None


def test_a_stack_message_finds_its_raise_site(ix):
    assert ix.frame_package('File "/venv/lib/python3.11/site-packages/transformers/models/auto/configuration_auto.py"') \
        == ("transformers", "transformers/models/auto/configuration_auto.py")
    text = ("ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not "
            "recognize this architecture. This could be because of an issue with the checkpoint, or because your "
            "version of Transformers is out of date.")
    best = ix.match("transformers", text)[0]
    assert best.score >= 90 and best.site.exc == "ValueError"
    assert best.site.latest_where()["file"] == "transformers/models/auto/configuration_auto.py"
    assert "4.40.2" in best.site.releases
    assert ix.match("transformers", "something nobody raises here at all, really") == []
    assert ix.match("no-such-package", text) == []


def test_hip_codes_by_name_number_and_torchs_text(ix):
    rec = ix.hip("hipErrorInvalidDevice")
    assert (rec.api, rec.number, rec.text) == ("hip", 101, "invalid device ordinal")
    assert ix.hip(209).name == "hipErrorNoBinaryForGpu"
    assert ix.hip("hipErrorMemoryAllocation").name == "hipErrorOutOfMemory"      # a deprecated alias
    assert ix.hip(0x1008, api="hsa").name == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    hits = ix.codes_in("RuntimeError: HIP error: invalid device ordinal HIP kernel errors might be asynchronously reported")
    assert [(h.kind, h.record.number, h.by) for h in hits] == [("hip", 101, "text")]
    assert [h.record.name for h in ix.codes_in("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")] \
        == ["hipErrorNoBinaryForGpu"]


def test_hip_texts_need_torchs_words(ix):
    # CUDA's and HIP's texts are the same words: only "HIP error: " says which; torch's allocator line is not a code
    assert ix.codes_in("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB") == []
    assert ix.codes_in("RuntimeError: HIP error: invalid argumentation") == []
    assert [h.kind for h in ix.codes_in("RuntimeError: CUDA error: invalid device ordinal")] == ["cuda"]


def test_intel_and_amd_codes_by_name(ix):
    # oneCCL's line for a failed Level Zero call, SYCL's Unified Runtime, amdsmi's exception, ROCm's page fault
    hits = ix.codes_in("oneCCL: ze_call.cpp:28 do_call: EXCEPTION: ze error at zeMemOpenIpcHandle, "
                       "code: ZE_RESULT_ERROR_INVALID_ARGUMENT")
    assert [(h.kind, h.record.number) for h in hits] == [("level_zero", 0x78000004)]
    assert ix.platform_code("UR_RESULT_ERROR_DEVICE_LOST").kind == "unified_runtime"
    assert ix.platform_code("AMDSMI_STATUS_DRIVER_NOT_LOADED").text == "Driver not loaded"
    assert ix.hip(41, api="hsa").name == "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"
    assert ix.codes_in("ZE_RESULT_ERROR_NO_SUCH_THING") == []


def test_gpu_archs_first_and_last_toolkit(ix):
    # read from each toolkit's ptxas (build/gpu_archs.py): new architectures need a new enough CUDA, old ones are dropped
    assert ix.gpu_arch("compute_120")["first"] == "12.8" and ix.gpu_arch("sm_120")["last"] is None
    assert ix.gpu_arch("compute_90")["first"] == "11.8" and ix.gpu_arch("sm_90a")["first"] == "12.0"
    assert ix.gpu_arch("sm_103")["first"] == ix.gpu_arch("sm_121")["first"] == "12.9"
    assert ix.gpu_arch("sm_110")["first"] == "13.0" and ix.gpu_arch("sm_86")["first"] == "11.1"
    assert (ix.gpu_arch("compute_70")["last"], ix.gpu_arch("compute_70")["dropped_in"]) == ("12.9", "13.0")
    assert (ix.gpu_arch("sm_37")["last"], ix.gpu_arch("sm_37")["dropped_in"]) == ("11.8", "12.0")
    assert ix.gpu_arch("compute_130") is None and ix.gpu_arch("compute_native") is None


def test_makes_exit_status_in_a_cuda_build_is_no_cuda_error_code(ix):
    line = "nvcc fatal   : Unsupported gpu architecture 'compute_90' gmake[2]: *** [examples/x.dir/mode.cu.o] Error 1"
    assert not [h for h in ix.codes_in(line) if h.kind == "cuda"]
    assert [h.record.number for h in ix.codes_in("CUDA error 804: forward compatibility") if h.kind == "cuda"] == [804]
