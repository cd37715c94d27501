"""Kernel libraries beneath vLLM refusing the GPU's architecture: which of vLLM's paths called FlashAttention on a
GPU below Ampere (the fix differs by path), and whether FlashInfer's "sm75 or higher" means an old GPU or a wrong
architecture list (the GPU the log names decides)."""

from bot.diagnose.answering import advice


def _fa(frames, **facts):
    return advice.derive("flash-attn-needs-ampere", {}, {"frames": frames, **facts})


def _fi(frames=(), values=None, **facts):
    return advice.derive("flashinfer-gpu-arch-refused", values or {}, {"frames": list(frames), **facts})


def test_the_vision_encoder_is_told_from_the_language_model_of_the_same_file():
    vision = ["vllm/v1/worker/gpu_model_runner.py:_execute_mm_encoder", "vllm/model_executor/models/qwen2_vl.py:forward",
              "vllm/vllm_flash_attn/flash_attn_interface.py:flash_attn_varlen_func"]
    assert _fa(vision) == {"fa_vision": "yes"}
    decoder = ["vllm/model_executor/models/qwen2_vl.py:forward", "vllm/attention/layer.py:unified_attention"]
    assert _fa(decoder) == {"fa_decoder": "yes"}


def test_mla_and_v0_flashinfer_are_their_own_paths():
    assert "fa_mla" in _fa(["vllm/model_executor/models/deepseek_v2.py:forward"])
    assert "fa_flashinfer" in _fa(["vllm/attention/backends/flashinfer.py:forward",
                                   "vllm/vllm_flash_attn/flash_attn_interface.py:flash_attn_varlen_func"])


def test_the_flash_attn_package_is_named_only_without_vllms_copy():
    assert _fa(["vllm/model_executor/models/qwen2_vl.py:forward", "flash_attn/flash_attn_interface.py:forward"])[
        "fa_package"] == "yes"
    assert "fa_package" not in _fa(["vllm/vllm_flash_attn/flash_attn_interface.py:flash_attn_varlen_func"])


def test_the_gpus_capability_is_named_where_the_log_names_the_gpu():
    out = _fa([], gpu_name="Tesla T4", compute_capability="7.5")
    assert out["gpu_capability"] == "7.5 (`sm_75`)"
    assert "gpu_capability" not in _fa([], compute_capability="7.5")


def test_flashinfer_an_old_gpu_is_no_wrong_list():
    out = _fi(gpu_name="Tesla V100-SXM2-32GB", compute_capability="7.0")
    assert out["fi_old_gpu"] == "yes" and "fi_wrong_list" not in out


def test_flashinfer_a_new_enough_gpu_means_the_list_was_wrong():
    out = _fi(["vllm/v1/sample/ops/topk_topp_sampler.py:forward_cuda", "flashinfer/sampling.py:top_k_top_p_sampling"],
              gpu_name="NVIDIA H100 80GB HBM3", compute_capability="9.0")
    assert out["fi_wrong_list"] == "yes" and out["gpu_cc"] == "9.0" and out["fi_sampler"] == "yes"


def test_flashinfer_an_empty_detected_list_is_a_wrong_list_without_the_gpu():
    out = _fi(values={"fi_archs": ""})
    assert out == {"fi_empty": "yes", "fi_wrong_list": "yes"}
    assert "fi_empty" not in _fi(values={"fi_archs": "(7, '0')"})


def _family(majors, frames=(), **facts):
    return advice.derive("flashinfer-arch-family-missing", {"fi_majors": majors}, {"frames": list(frames), **facts})


def test_flashinfer_a_kernel_of_another_generation_is_told_from_a_dropped_gpu():
    rtx = {"gpu_name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
    other = _family("[10]", ["flashinfer/fused_moe/core.py:get_trtllm_moe_sm100_module"], **rtx)
    assert other["fi_other_family"] == "yes" and other["fi_moe"] == "yes"
    assert "fi_sm12_toolkit" not in other
    # the GPU is of the module's generation: on SM 12.x the toolkit FlashInfer found dropped it
    assert _family("[12]", **rtx)["fi_sm12_toolkit"] == "yes"
    hopper = _family("[9, 10]", gpu_name="NVIDIA H100 80GB HBM3", compute_capability="9.0")
    assert hopper["fi_list_lacks"] == "yes" and hopper["fi_major_names"].startswith("Hopper")
    # no GPU named: only the generations the kernel is built for
    assert _family("[10]") == {"fi_major_names": "Blackwell B200/GB200 (10.x)"}


def _quant(method, need, have):
    return advice.derive("quant-capability-too-low",
                         {"method": method, "min_capability": need, "current_capability": have}, {})


def test_quant_capability_advice_follows_the_method_and_the_gpu():
    assert _quant("gptq_marlin", "80", "75")["qc_plain"] == "gptq"
    assert _quant("gptq_marlin", "80", "75")["qc_turing_upgrade"] == "yes"
    # awq's plain kernels need Turing too: no plain method to fall back to on a V100
    assert "qc_marlin_named" not in _quant("awq_marlin", "80", "70")
    assert _quant("fp8", "80", "70") == {"qc_gpus": "V100, Titan V", "qc_no_fp8": "yes"}
    assert "qc_fp8_old_release" in _quant("fp8", "90", "86")
    assert "qc_mxfp4_upgrade" in _quant("mxfp4", "100", "86") and "qc_mxfp4" in _quant("mxfp4", "80", "75")
    assert "qc_scheme_turing" in _quant(None, "80", "75")
    assert "qc_fp8_activations" in _quant(None, "89", "86")


def _csm(cc, required=None):
    return advice.derive("cutlass-scaled-mm-not-compiled", {"device_cc": cc, "required": required}, {})


def test_cutlass_scaled_mm_a_gpu_below_turing_is_told_from_a_build_that_left_it_out():
    assert "csm_pre_turing" in _csm("70")
    assert "csm_build_lacks" in _csm("87") and _csm("87")["device_cc_label"].startswith("8.7")
    assert "csm_moe_other_gpu" in _csm("120", "90 or 100")
    assert "csm_build_lacks" in _csm("90", "90 or 100")


def test_marlin_listing_no_type_for_the_gpu_points_at_the_plain_kernels():
    t4 = advice.derive("quant-capability-too-low", {"marlin_type": "uint4b8", "current_capability": "75"}, {})
    assert t4["qc_plain"] == "gptq" and t4["suggest"] == {"quantization": "gptq"} and t4["qc_turing_upgrade"] == "yes"
    # AWQ's plain kernels need Turing: nothing to suggest on a V100
    v100_awq = advice.derive("quant-capability-too-low", {"marlin_type": "uint4", "current_capability": "70"}, {})
    assert v100_awq["qc_marlin_empty"] == "yes" and "qc_plain" not in v100_awq
