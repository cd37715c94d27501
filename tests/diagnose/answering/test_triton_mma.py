"""Triton's abort on an MMA layout conversion: the GPU's generation, where the log names the GPU."""

from bot.diagnose import diagnose

ASSERT = ("python3: /project/lib/Analysis/Allocation.cpp:43: std::pair<llvm::SmallVector<unsigned int>, "
          "llvm::SmallVector<unsigned int> > mlir::triton::getCvtOrder(mlir::Attribute, mlir::Attribute): Assertion "
          "`!(srcMmaLayout && dstMmaLayout && !srcMmaLayout.isAmpere()) && \"mma -> mma layout conversion is only "
          "supported on Ampere\"' failed.\n")


def _top(text):
    r = diagnose(text)
    return r.diagnoses[0] if r.diagnoses else None


def test_a_volta_gpu_is_named_with_its_capability():
    d = _top("GPU models and configuration: GPU 0: Tesla V100S-PCIE-32GB\n" + ASSERT)
    assert d.rule_id == "triton-mma-layout-unsupported"
    assert "Tesla V100S-PCIE-32GB, is of compute capability 7.0 (`sm_70`)" in d.cause
    assert "Hopper" not in d.cause.split("\n\n")[-1]


def test_a_hopper_gpu_is_told_it_is_tritons_bug_not_the_gpu():
    d = _top("GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3\n" + ASSERT)
    assert "Triton bug" in d.cause and "9.0 (`sm_90`)" in d.cause and "below Ampere" not in d.cause


def test_without_the_gpu_the_generic_cause_only():
    d = _top(ASSERT)
    assert d.rule_id == "triton-mma-layout-unsupported" and "is of compute capability" not in d.cause


def test_another_programs_log_is_not_answered():
    sglang = "[gpu=0] Prefill batch. #new-seq: 1, #new-token: 7\npython -m sglang.launch_server --model-path m\n" + ASSERT
    assert _top(sglang) is None


PTXAS = "ptxas /tmp/compile-ptx-src-3c809d, line 382; error   : Feature '{feature}' requires .target sm_{sm} or higher\n"


def test_a_bf16_instruction_on_a_named_turing_gpu_says_half_and_names_the_gpu():
    d = _top("GPU models and configuration: GPU 0: Tesla T4\n" + PTXAS.format(feature=".bf16", sm="80"))
    assert d.rule_id == "ptxas-feature-needs-newer-gpu"
    assert "8.0 (`sm_80`)" in d.cause and "Tesla T4, is of compute capability 7.5 (`sm_75`)" in d.cause
    assert "bfloat16" in d.cause and "--dtype half" in d.fix and d.suggested == {"dtype": "half"}


def test_an_fp8_instruction_says_fp8_not_half():
    d = _top(PTXAS.format(feature="cvt.rn.satfinite.e4m3x2.f32", sm="89"))
    assert "8.9 (`sm_89`)" in d.cause and "FP8" in d.cause and "bfloat16" not in d.cause
    assert "--dtype half" not in d.fix and "--kv-cache-dtype" in d.fix


def test_a_build_is_told_to_change_its_targets_not_the_models_dtype():
    build = ('  [112/260] /usr/local/cuda/bin/nvcc -I/workspace/vllm/csrc -gencode arch=compute_70,code=sm_70 '
             '-gencode arch=compute_80,code=sm_80 -c /workspace/vllm/csrc/attention/paged_attention_v1.cu -o a.o\n'
             "  ptxas /tmp/tmpxft_0000601c_00000000-6_paged_attention_v1.ptx, line 583; error   : Feature '.bf16' "
             "requires .target sm_80 or higher\n  ninja: build stopped: subcommand failed.\n")
    for lang, words in (("en", "This is a build"), ("zh", "这是构建")):
        d = diagnose(build, lang=lang).diagnoses[0]
        assert d.rule_id == "ptxas-feature-needs-newer-gpu" and words in d.cause and "TORCH_CUDA_ARCH_LIST" in d.fix
        assert "bfloat16" not in d.cause and "--dtype half" not in d.fix and not d.suggested and not d.command


CHUNKED = "INFO 01-01 00:00:00 [api_server.py:1755] vLLM API server version {v}\n" + ASSERT


def test_the_flags_that_turn_chunked_prefill_off_are_the_releases_own():
    # --no-enable-prefix-caching from 0.6.5, --no-enable-chunked-prefill from 0.8.5 (StoreBoolean before: =False)
    for version, has, lacks in (("0.8.5", "--no-enable-chunked-prefill", "--enable-chunked-prefill=False"),
                                ("0.7.3", "--no-enable-prefix-caching --enable-chunked-prefill=False", "--no-enable-chunked"),
                                ("0.6.4", "leave out `--enable-prefix-caching`", "--no-enable")):
        d = _top(CHUNKED.format(v=version))
        assert has in d.fix and lacks not in d.fix, version
