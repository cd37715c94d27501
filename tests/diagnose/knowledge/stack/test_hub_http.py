"""huggingface_hub's HTTP errors read by class: the same answer whatever the release wraps it in."""

import pytest

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.hub_http import body, hub_class, read

ix = stack_index.load()
pytestmark = pytest.mark.skipif(ix is None, reason="the stack index's data is not installed")

# huggingface_hub 0.36.2's words for a branch the repo lacks (the status line, a blank line, the class's text)
REVISION = ("huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. (Request ID: Root=1-x)\n\n"
            "Revision Not Found for url: https://huggingface.co/api/models/Qwen/Qwen2.5-7B-Instruct/revision/v2.0.\n"
            "Invalid rev id: v2.0\n")


def test_the_class_decides_and_the_lines_under_it_give_the_request():
    first = REVISION.split("\n")[0]
    values = read(ix, "huggingface_hub.errors.RevisionNotFoundError", first, REVISION, 1)
    assert values["hub_no_revision"] and values["hub_status"] == "404"
    assert (values["hub_repo"], values["hub_revision"]) == ("Qwen/Qwen2.5-7B-Instruct", "v2.0")
    assert "Invalid rev id" in body(REVISION, 1, first)


def test_another_programs_class_of_the_same_name_is_not_the_hubs():
    assert hub_class(ix, "openai.BadRequestError") is None
    assert hub_class(ix, "BadRequestError") is None                       # no module, no Hub frame
    assert hub_class(ix, "BadRequestError", hub_frames=True) == ("BadRequestError", "bad_request")
    assert hub_class(ix, "huggingface_hub.errors.LocalEntryNotFoundError") is None     # the cache's, not HTTP
    assert hub_class(ix, "requests.exceptions.HTTPError") is None


def test_a_subclass_a_later_release_added_gets_its_bases_paragraph():
    # RemoteEntryNotFoundError (1.0+) derives from HfHubHTTPError and EntryNotFoundError
    assert hub_class(ix, "huggingface_hub.errors.RemoteEntryNotFoundError") == ("RemoteEntryNotFoundError", "entry")


@pytest.mark.parametrize("url, kind", [
    ("https://huggingface.co/foo/bar/resolve/main/generation_config.json", "hub_entry_optional"),
    ("https://huggingface.co/foo/bar/resolve/main/tokenizer.json", "hub_entry_required"),
    ("https://huggingface.co/foo/bar/resolve/main/model-00001-of-00004.safetensors", "hub_entry_required"),
])
def test_a_missing_file_is_told_optional_or_required(url, kind):
    text = f"EntryNotFoundError: 404 Client Error.\n\nEntry Not Found for url: {url}.\n"
    assert read(ix, "huggingface_hub.errors.EntryNotFoundError", text.split("\n")[0], text, 1)[kind]


def test_a_plain_404_for_a_file_from_a_mirror_says_why_it_is_not_entry_not_found():
    text = "HfHubHTTPError: 404 Client Error: Not Found for url: https://hfproxy/m/x/resolve/main/sentence_bert_config.json\n"
    values = read(ix, "HfHubHTTPError", text.strip(), text, 1)
    assert values["hub_plain_404_file"] and values["hub_host"] == "hfproxy" and values["hub_entry_optional"]


def test_httpx_wording_and_the_403_fine_grained_token():
    text = ("huggingface_hub.errors.HfHubHTTPError: (Request ID: Root=1-x)\n\n403 Forbidden: Please enable access to "
            "public gated repositories in your fine-grained token settings to view this repository..\n"
            "Cannot access content at: https://huggingface.co/api/models/meta-llama/Llama-3.1-8B-Instruct/revision/main.\n")
    values = read(ix, "huggingface_hub.errors.HfHubHTTPError", text.split("\n")[0], text, 1)
    assert values["hub_http_403"] and values["hub_fine_grained"] and "hub_status_meaning" not in values
    one = "HfHubHTTPError: Client error '401 Unauthorized' for url 'https://huggingface.co/api/models/a/b/revision/main'"
    assert read(ix, "HfHubHTTPError", one, one, 1)["hub_http_401"]


def test_transformers_rewording_is_read_by_the_handler_its_site_sits_in():
    from bot.diagnose.knowledge.stack.hub_http import read_wrapped
    text = ("v2.0 is not a valid git identifier (branch name, tag name or commit id) that exists for this model "
            "name. Check the model page at 'https://huggingface.co/Qwen/Qwen2.5-7B-Instruct' for available revisions.")
    values = read_wrapped(ix, "OSError", text)
    assert values["hub_class"] == "RevisionNotFoundError" and values["hub_wrapped"]
    assert (values["hub_repo"], values["hub_revision"]) == ("Qwen/Qwen2.5-7B-Instruct", "v2.0")
    # a folder that lacks the file is worded alike by transformers, and asked nothing of the Hub
    local = ("/home/u/llm/Meta-Llama-3-8B-Instruct does not appear to have a file named config.json. Checkout "
             "'https://huggingface.co//home/u/llm/Meta-Llama-3-8B-Instruct/None' for available files.")
    assert read_wrapped(ix, "OSError", local) is None
    assert read_wrapped(ix, "ValueError", text) is None


def test_an_optional_file_is_the_answer_only_where_nothing_failed_after_it():
    from bot.diagnose import diagnose
    paste = ("(EngineCore_DP0 pid=211) INFO 12-02 10:00:00 [core.py:1] vLLM 0.31.0\n"
             "huggingface_hub.errors.EntryNotFoundError: 404 Client Error. (Request ID: Root=1-x)\n\n"
             "Entry Not Found for url: https://huggingface.co/foo/bar/resolve/main/generation_config.json.\n\n"
             "The above exception was the direct cause of the following exception:\n\n"
             "OSError: foo/bar does not appear to have a file named generation_config.json. Checkout "
             "'https://huggingface.co/foo/bar/tree/main' for available files.\n")
    assert [d.rule_id for d in diagnose(paste).diagnoses][:1] == ["stack-hub-http"]
    later = paste + "RuntimeError: the engine failed for another reason\n"
    assert "stack-hub-http" not in [d.rule_id for d in diagnose(later).diagnoses]
