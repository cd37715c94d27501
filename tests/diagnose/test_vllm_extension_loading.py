"""vLLM's own compiled extension failing to load: a `_C` file named without its folder is vLLM's where the paste shows
vLLM importing it; a CUDA runtime of another major than torch's, asked for by vLLM's extension, is vLLM's build and
torch disagreeing on CUDA, not a runtime to install."""

from bot.diagnose import diagnose
from bot.diagnose.reading.facts import vllm_ext_import

SYMBOL = "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEE"


def _traceback(import_line: str, error: str, head: str = "") -> str:
    return head + "\n".join([
        "Traceback (most recent call last):",
        '  File "/home/u/app.py", line 1, in <module>',
        "    from vllm import LLM",
        '  File "/env/lib/python3.11/site-packages/vllm/utils.py", line 11, in <module>',
        f"    {import_line}",
        error,
    ]) + "\n"


def _ids(text: str) -> list[str]:
    return [d.rule_id for d in diagnose(text).diagnoses]


def test_the_import_line_or_a_custom_ops_frame_shows_vllm_importing_its_extension():
    assert vllm_ext_import("    from vllm._C import ops\n")
    assert vllm_ext_import("(EngineCore pid=1)     import vllm._C  # noqa: F401\n")
    assert vllm_ext_import("    from vllm import cuda_utils\n")
    assert vllm_ext_import('  File "/env/site-packages/vllm/_custom_ops.py", line 14, in <module>\n')
    assert not vllm_ext_import("    from torch._C import _cuda_getDeviceCount\n")
    assert not vllm_ext_import("import vllm\nfrom vllm import LLM\n")


def test_a_c_extension_without_its_folder_is_vllms_where_vllm_imports_it():
    error = f"ImportError: _C.cpython-311-x86_64-linux-gnu.so: undefined symbol: {SYMBOL}"
    assert _ids(_traceback("from vllm._C import ops", error))[0] == "vllm-c-undefined-symbol"
    # torch's own _C, or nothing that shows vLLM importing it: not vLLM's rule
    assert "vllm-c-undefined-symbol" not in _ids(_traceback("from torch._C import x", error))


def test_vllms_cuda_12_extension_beside_a_cu118_torch_is_a_build_mismatch():
    error = "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"
    report = diagnose(_traceback("from vllm._C import cuda_utils", error, "vllm==0.5.0, torch==2.1.2+cu118\n"))
    top = report.diagnoses[0]
    assert top.rule_id == "stack-loader"
    assert "vLLM's own compiled extension" in top.cause and "CUDA 11.8" in top.cause
    assert "nvidia-cuda-runtime-cu12" not in top.fix        # no second runtime beside torch's
    assert '"torch==2.3.0"' in top.fix and "whl/cu121" in top.fix and "+cu118" in top.fix
    # another package's import of the same library keeps the runtime advice
    other = diagnose("torch==2.1.2+cu118\n" + error + "\n").diagnoses[0]
    assert "vLLM's own compiled extension" not in other.cause


def test_a_virtual_environment_named_vllm_is_not_vllms_extension_folder():
    # vllm-ascend#750: torch_npu's ATB plugin, in a conda environment the user named vllm, is torch_npu's library
    other = ("OSError: /home/u/anaconda3/envs/vllm/lib/python3.9/site-packages/torch_npu/lib/libop_plugin_atb.so: "
             "undefined symbol: _ZN3atb15CreateOperationINS_5infer14GroupTopkParamEEEiRKT_PPNS_9OperationE\n")
    assert "vllm-c-undefined-symbol" not in _ids(other)
    # the same environment's own vLLM extension still is vLLM's
    own = f"ImportError: /home/u/anaconda3/envs/vllm/lib/python3.10/site-packages/vllm/_C.abi3.so: undefined symbol: {SYMBOL}\n"
    assert _ids(own)[0] == "vllm-c-undefined-symbol"
