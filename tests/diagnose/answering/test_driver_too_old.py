"""driver-too-old answering the NVIDIA Container Toolkit's `unsatisfied condition: cuda>=X.Y`: the
driver that CUDA needs, and with the host's driver in the paste, a vLLM release it runs."""

from pathlib import Path

import pytest

from bot.diagnose import diagnose, load_rulebook
from bot.diagnose.answering import advice
from bot.diagnose.knowledge.stack import stack_index
from bot.learn import fixtures

BOOK = load_rulebook(use_cache=False)
LOGS = Path(BOOK.directory).parent / "tests" / "fixtures" / "logs"
IX = stack_index.load()

pytestmark = pytest.mark.skipif(IX is None, reason="the stack index's data is not installed")


def best(rel: str, lang: str = "en"):
    return diagnose(fixtures.read(LOGS / rel).data, lang=lang, book=BOOK).best


# TabbyAPI's compose start refused on driver 550 (tabbyAPI#324) is TabbyAPI's deployment and stays unanswered;
# the same lines with vLLM's image in its place are a vLLM user's
TABBY = "_negative/tabbyapi-compose-image-require-cuda128-driver550.log"


def vllm_image(lang: str = "en"):
    text = fixtures.read(LOGS / TABBY).data.decode()
    text = text.replace("ghcr.io/theroyallab/tabbyapi:latest", "vllm/vllm-openai:latest").replace("tabbyapi-1", "vllm-1")
    return diagnose(text, lang=lang, book=BOOK).best


def test_another_programs_image_refused_by_the_toolkit_is_not_answered():
    assert best(TABBY) is None


def test_image_cuda_needs_its_toolkit_driver_and_the_host_driver_gets_a_release_it_runs():
    d = vllm_image()
    assert d.rule_id == "driver-too-old"
    assert "570.26" in d.fix
    # driver 550 runs CUDA 12.4: the newest vLLM whose pinned torch is built for CUDA <= 12.4
    alt = advice.derive("driver-too-old", {"image_cuda": "12.8"}, {"driver_cuda": "12.4"})
    assert IX.manifest(alt["alt_vllm"])["cuda"] == "12.4"
    assert f"pip install vllm=={alt['alt_vllm']}" in d.fix
    # the wheel's paragraphs do not apply to a container that never started
    assert "unpinned `pip install" not in d.cause


def test_no_host_driver_in_the_paste_names_no_release():
    d = best("driver-too-old/container-require-cuda110-oci-hook.log")
    assert "450.51.05" in d.fix
    assert "pip install vllm==" not in d.fix


def test_a_driver_that_would_pass_is_not_this_hosts_and_is_not_used():
    out = advice.derive("driver-too-old", {"image_cuda": "12.4"}, {"driver_cuda": "12.8"})
    assert "alt_vllm" not in out and "host_cuda" not in out


def test_chinese_text_keeps_the_values():
    d = vllm_image(lang="zh")
    assert "570.26" in d.fix and "pip install vllm==" in d.fix
