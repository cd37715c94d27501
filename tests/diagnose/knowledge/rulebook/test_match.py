"""Reworded messages (match._fuzzy_candidates): a rewording keeps the names its sentence turns on."""

from bot.diagnose import diagnose

UVA = """
    id: uva-missing
    level: root
    title: {en: No UVA, zh: 没有 UVA}
    match:
      patterns: ['^RuntimeError: UVA is not available\\s*$']
      fuzzy: ['RuntimeError: UVA is not available']
    cause: {en: Pinned memory is off., zh: 固定内存关了。}
    fix: {en: Turn it on., zh: 打开它。}
    versions: ">=0.5"
    verified: {vllm: 0.32.0}
"""


def test_a_rewording_that_keeps_the_name_is_matched(make_book):
    book = make_book({"uva-missing": UVA})
    r = diagnose("RuntimeError: UVA is not available on this platform today\n", book=book)
    assert r.best is not None and r.best.rule_id == "uva-missing" and r.best.matched_by == "fuzzy"


def test_a_sibling_message_naming_something_else_is_not_a_rewording(make_book):
    # partial_ratio scores "CUDA is not available" above the cut-off against "UVA is not available"
    book = make_book({"uva-missing": UVA})
    for other in ("RuntimeError: CUDA is not available\n", "RuntimeError: NCCL is not available\n"):
        assert diagnose(other, book=book).best is None
