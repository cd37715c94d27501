"""A torch symbol missing from another package's extension (flash-attn's, xformers', apex's) names that module, so
the answer says to rebuild that package for the installed torch; torch's and vLLM's own libraries keep the advice
about torch itself."""

from bot.diagnose.knowledge.stack.stack_answers import _extension_module


def test_another_packages_extension_is_named_with_its_package():
    assert _extension_module("/env/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") \
        == "flash_attn_2_cuda"
    assert _extension_module("/env/lib/python3.12/site-packages/xformers/_C.so") == "xformers._C"


def test_torch_and_vllm_libraries_are_not_another_package():
    for library in ("/env/site-packages/torch/lib/libtorch_cuda.so", "/env/site-packages/torch/_C.cpython-310-x86_64-linux-gnu.so",
                    "/env/site-packages/vllm/_C.abi3.so", "vllm/_C.abi3.so", "_moe_C.abi3.so",
                    "/env/site-packages/vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so"):
        assert _extension_module(library) is None, library
