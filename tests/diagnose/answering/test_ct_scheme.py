"""compressed-tensors' "No compressed-tensors compatible scheme was found": the scheme vLLM 0.23+ prints in
weight_quant / input_quant named, W4A8-FP8 (Hopper only) told from a GPU that is not 9.0, the release that first
runs a scheme where the log's is older, and vllm-ascend's own message."""

from bot.diagnose.answering import advice


def _args(bits, kind, strategy, group="None"):
    return (f"QuantizationArgs(num_bits={bits}, type='{kind}', symmetric=True, group_size={group}, "
            f"strategy='{strategy}', block_structure=None, dynamic=False, actorder=None)")


def _ct(w, a="None", **facts):
    return advice.derive("quant-ct-scheme-unsupported", {"weight_quant": w, "input_quant": a,
                                                           "ct_layer": "'model.layers.0.mlp.down_proj'"}, facts)


def test_nvfp4_and_nvfp4a16_are_named():
    assert _ct(_args(4, "float", "tensor_group", 16), _args(4, "float", "tensor_group", 16))["ct_scheme"].startswith("NVFP4 (")
    out = _ct(_args(4, "float", "tensor_group", 16))
    assert out["ct_scheme"].startswith("NVFP4A16") and out["ct_layer_shown"] == "`model.layers.0.mlp.down_proj`"


def test_w4a8_fp8_off_hopper_is_flagged_with_the_gpu():
    out = _ct(_args(4, "int", "group", 128), _args(8, "float", "token"), compute_capability="8.9")
    assert out["ct_w4a8_fp8"] == "yes" and "8.9" in out["ct_cc"] and out["ct_fix_named"] == "yes"
    assert "ct_w4a8_fp8" not in _ct(_args(4, "int", "group", 128), _args(8, "float", "token"), compute_capability="9.0")
    assert _ct(_args(4, "int", "group", 128), _args(8, "int", "token"))["ct_scheme"].startswith("W4A8 (int4")


def test_the_release_that_runs_it_only_for_an_older_vllm():
    block = _args(8, "float", "block")
    assert _ct(block, _args(8, "float", "token"), vllm_version="0.10.1.1")["ct_since"] == "0.11.0"
    assert "ct_since" not in _ct(block, _args(8, "float", "token"), vllm_version="0.24.0")


def test_other_schemes_are_described_and_no_args_say_nothing():
    assert _ct(_args(8, "int", "channel"))["ct_scheme"].startswith("W8A16 (8-bit int weights, channel")
    assert advice.derive("quant-ct-scheme-unsupported", {}, {}) == {}
    assert advice.derive("quant-ct-scheme-unsupported", {"ascend_quant_type": "W4A16"}, {}) == {"ct_fix_named": "yes"}
