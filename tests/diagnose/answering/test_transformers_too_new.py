"""A transformers release outside the range the log's vLLM was made for, in the shapes beside vLLM's own
imports: transformers 5's stricter configs under a vLLM made for 4.x, a removed tokenizer attribute in a
rollout trainer's paste, another package's import of a removed name, and pip's conflict line on its own.
The wordings are transformers' and pip's (5.0.0 wheel, pip 23.2); the pastes are cut to what decides."""

from __future__ import annotations

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.knowledge.rulebook.match import condition_holds

BOOK = load_rulebook(use_cache=False)

# vLLM 0.11.0's config loading under transformers 5.0.0: a nested per-layer-type rope_parameters has no
# 'rope_type' key at its top (vllm/transformers_utils/config.py, patch_rope_scaling_dict)
CONFIG_ERROR = """\
(APIServer pid=1) INFO 02-03 09:46:59 [api_server.py:1839] vLLM API server version {vllm}
transformers                             {tf}
(APIServer pid=1) Traceback (most recent call last):
(APIServer pid=1)   File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py", line 560, in get_config
(APIServer pid=1)     patch_rope_scaling(config)
(APIServer pid=1)   File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py", line 330, in patch_rope_scaling_dict
(APIServer pid=1)     raise ValueError("rope_scaling should have a 'rope_type' key")
(APIServer pid=1) ValueError: rope_scaling should have a 'rope_type' key
"""

# transformers 5's layer_types check raised in its own config class, in a script that is not vLLM
PLAIN_CONFIG_ERROR = """\
transformers                             5.0.0
Traceback (most recent call last):
  File "/home/u/train.py", line 9, in <module>
    config = AutoConfig.from_pretrained(path)
  File "/usr/lib/python3/site-packages/transformers/configuration_utils.py", line 1243, in layer_type_validation
    raise ValueError(f"The `layer_types` entries must be in {allowed_layer_types}")
ValueError: The `layer_types` entries must be in ('full_attention', 'sliding_attention', 'chunked_attention', 'linear_attention')
"""

# a verl run cut above vLLM's frames: the trainer's and transformers' own, with verl's rollout setting naming vLLM
VERL_TOKENIZER = """\
(TaskRunner pid=2140) Error executing job with overrides: ['algorithm.adv_estimator=grpo', 'actor_rollout_ref.rollout.name=vllm']
ray.exceptions.ActorDiedError: The actor died because of an error raised in its creation task, ray::WorkerDict.__init__() (pid=3301, ip=10.0.0.2)
  File "/workspace/verl/verl/workers/fsdp_workers.py", line 512, in init_model
    self.rollout, self.rollout_sharding_manager = self._build_rollout()
  File "/usr/local/lib/python3.10/site-packages/transformers/tokenization_utils_base.py", line 1326, in __getattr__
    raise AttributeError(f"{self.__class__.__name__} has no attribute {key}")
AttributeError: Qwen2TokenizerFast has no attribute all_special_tokens_extended
"""

# LLaMA-Factory's environment report names vLLM, but the frames are its own trainer's
LLAMAFACTORY_TOKENIZER = """\
- `llamafactory` version: 0.9.4
- vLLM version: 0.10.2
Traceback (most recent call last):
  File "/opt/LLaMA-Factory/src/llamafactory/model/loader.py", line 80, in load_tokenizer
    patch_tokenizer(tokenizer, model_args)
  File "/usr/local/lib/python3.10/site-packages/transformers/tokenization_utils_base.py", line 1326, in __getattr__
    raise AttributeError(f"{self.__class__.__name__} has no attribute {key}")
AttributeError: Qwen2TokenizerFast has no attribute all_special_tokens_extended
"""


def best(text: str):
    return diagnose(text, book=BOOK).best


def test_transformers_version_is_a_when_key_read_as_a_version():
    assert condition_holds("transformers_version", ">=5.0.0.dev0", {"transformers_version": "5.2.0"})
    assert condition_holds("transformers_version", ">=5.0.0.dev0", {"transformers_version": "5.0.0rc1"})
    assert not condition_holds("transformers_version", ">=5.0.0.dev0", {"transformers_version": "4.57.6"})
    assert not condition_holds("transformers_version", ">=5.0.0.dev0", {})


def test_a_config_error_under_transformers_5_and_a_vllm_made_for_4_is_the_version():
    d = best(CONFIG_ERROR.format(vllm="0.11.0", tf="5.0.0"))
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "With transformers 5.0.0, vLLM 0.11.0 failed to build the model's configuration" in d.cause
    assert "rope_scaling should have a 'rope_type' key" in d.cause
    # vLLM 0.11.0's pin (>=4.55.2) has no ceiling: the fix names transformers 4 itself
    assert 'pip install "transformers<5"' in d.fix and "model card" not in d.fix


def test_the_same_error_is_not_the_version_when_either_side_fits():
    # transformers 4.x: the model's config itself; a vLLM whose pin admits transformers 5: the same
    for vllm, tf in (("0.11.0", "4.57.1"), ("0.24.0", "5.5.3")):
        d = best(CONFIG_ERROR.format(vllm=vllm, tf=tf))
        assert d is None or d.rule_id != "transformers-version-mismatch", (vllm, tf)


def test_a_config_error_in_a_program_that_is_not_vllm_is_not_answered():
    d = best(PLAIN_CONFIG_ERROR)
    assert d is None or d.rule_id != "transformers-version-mismatch"


def test_a_rollout_trainers_paste_cut_above_vllm_is_the_version():
    d = best(VERL_TOKENIZER)
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "all_special_tokens_extended" in d.cause


def test_a_training_program_that_lists_vllm_is_not_vllms_version_problem():
    d = best(LLAMAFACTORY_TOKENIZER)
    assert d is None or d.rule_id != "transformers-version-mismatch"


def test_pips_conflict_line_alone_is_answered_for_vllm_only():
    d = best("vllm 0.8.5 requires torch==2.6.0, but you have torch 2.7.0 which is incompatible.\n")
    assert d is not None and d.rule_id == "stack-pip-conflict" and "2.6.0" in d.title
    d = best("vllm 0.17.1 requires transformers<5,>=4.56.0, but you have transformers 5.3.0 which is incompatible.\n")
    assert d is not None and d.rule_id == "stack-pip-conflict" and "transformers" in d.title
    for other in ("sglang 0.4.6.post5 requires torch==2.6.0, but you have torch 2.7.1 which is incompatible.\n",
                  "llamafactory 0.9.3 requires transformers<=4.52.4,>=4.45.0, but you have transformers 4.57.1 "
                  "which is incompatible.\n"):
        assert best(other) is None, other


def test_another_packages_import_names_that_package_in_the_vllm_log():
    log = """\
INFO 02-19 10:00:00 api_server.py:900] vLLM API server version 0.7.2
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/guided_decoding/lm_format_enforcer_decoding.py", line 8, in <module>
    from lmformatenforcer.integrations.vllm import build_vllm_logits_processor
  File "/usr/local/lib/python3.12/dist-packages/lmformatenforcer/integrations/transformers.py", line 5, in <module>
    from transformers.generation.logits_process import LogitsWarper, PrefixConstrainedLogitsProcessor
ImportError: cannot import name 'LogitsWarper' from 'transformers.generation.logits_process' (/usr/local/lib/python3.12/dist-packages/transformers/generation/logits_process.py)
"""
    d = best(log)
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "`lmformatenforcer`'s own code" in d.cause and "not vLLM's" in d.cause
    # vLLM 0.7.2's own range of it, newest first (0.10.11 stopped importing LogitsWarper)
    assert 'pip install -U "lm-format-enforcer<0.11,>=0.10.9"' in d.fix and '"transformers>=4.48.2,<4.49.0"' in d.fix


def test_the_importer_is_the_frame_that_raised_the_import_not_the_last_traceback():
    # vLLM's own import fails; a second traceback (its usage report failing to connect) ends in requests' code,
    # which imported nothing from transformers
    log = """\
INFO 02-19 10:00:00 api_server.py:900] vLLM API server version 0.7.2
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/guided_decoding/xgrammar_decoding.py", line 8, in <module>
    from transformers.generation.logits_process import LogitsWarper
ImportError: cannot import name 'LogitsWarper' from 'transformers.generation.logits_process' (/usr/local/lib/python3.12/dist-packages/transformers/generation/logits_process.py)

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/usage/usage_lib.py", line 40, in report
    requests.post(url, json=data)
  File "/usr/local/lib/python3.12/dist-packages/requests/adapters.py", line 700, in send
    raise ConnectionError(e, request=request)
requests.exceptions.ConnectionError: HTTPSConnectionPool(host='stats.vllm.ai', port=443): Max retries exceeded
"""
    d = best(log)
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "requests" not in d.cause and "requests" not in d.fix
    assert '"transformers>=4.48.2,<4.49.0"' in d.fix


def test_a_wording_only_transformers_5_has_needs_no_version_of_it():
    # vLLM 0.12.0 (pin <5,>=4.56.0) building a config whose class sets rope_theta after super().__init__():
    # transformers 5's RoPE check (modeling_rope_utils.py) raises, a wording 4.x never had
    log = """\
(APIServer pid=7) INFO 01-20 10:00:00 [api_server.py:1839] vLLM API server version 0.12.0
(APIServer pid=7)   File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py", line 621, in get_config
(APIServer pid=7)     config = AutoConfig.from_pretrained(
(APIServer pid=7)   File "/usr/local/lib/python3.12/dist-packages/transformers/modeling_rope_utils.py", line 915, in validate_rope
(APIServer pid=7)     raise KeyError(f"Missing required keys in `rope_parameters` for 'rope_type'='{rope_type}': {missing_keys}")
(APIServer pid=7) KeyError: "Missing required keys in `rope_parameters` for 'rope_type'='default': {'rope_theta'}"
"""
    d = best(log)
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "failed to build the model's configuration under transformers 5" in d.cause
    assert 'pip install "transformers<5,>=4.56.0"' in d.fix
    # the same under a vLLM made for transformers 5 is the model's config, not the version
    d = best(log.replace("version 0.12.0", "version 0.24.0"))
    assert d is None or d.rule_id != "transformers-version-mismatch"


def test_a_negated_version_condition_holds_where_the_paste_shows_no_release_inside_it():
    assert condition_holds("vllm_version", "!>=0.26.0", {})
    assert condition_holds("vllm_version", "!>=0.26.0", {"vllm_version": "0.25.1"})
    assert not condition_holds("vllm_version", "!>=0.26.0", {"vllm_version": "0.26.0"})


# vLLM 0.25's granitemoehybrid.py keys its decoder layers on the old layer-type names; transformers >= 5.13.0
# renames them as the config loads (the granite-switch#122 shape, with the version lines a full log has)
LAYER_TYPE = """\
(APIServer pid=1) INFO 09-08 10:00:00 [api_server.py:1839] vLLM API server version {vllm}
{tf}(EngineCore pid=9824)   File "/venv/lib/python3.12/site-packages/vllm/model_executor/models/granitemoehybrid.py", line 347, in get_layer
(EngineCore pid=9824)     layer_class = ALL_DECODER_LAYER_TYPES[config.layer_types[layer_idx]]
(EngineCore pid=9824) KeyError: 'linear_attention'
"""


def test_a_renamed_layer_type_under_a_vllm_before_0_26_is_the_version():
    d = best(LAYER_TYPE.format(vllm="0.25.0", tf="transformers                             5.16.1\n"))
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "transformers 5.13.0 renamed the layer types" in d.cause and "`linear_attention`" in d.cause
    assert "The paste shows transformers 5.16.1" in d.cause
    assert 'pip install "transformers>=5.5.3,<5.13.0"' in d.fix and 'vllm>=0.26.0' in d.fix


def test_a_renamed_layer_type_read_from_the_checkpoint_itself_asks_for_vllm_not_an_older_transformers():
    d = best(LAYER_TYPE.format(vllm="0.25.0", tf="transformers                             5.12.1\n"))
    assert d is not None and d.rule_id == "transformers-version-mismatch"
    assert "the new names are in the checkpoint's" in d.cause
    assert 'pip install "transformers' not in d.fix and 'vllm>=0.26.0' in d.fix


def test_a_renamed_layer_type_under_vllm_0_26_is_not_the_version():
    d = best(LAYER_TYPE.format(vllm="0.26.0", tf=""))
    assert d is None or d.rule_id != "transformers-version-mismatch"
