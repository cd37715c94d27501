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


def test_the_bound_leaves_the_best_sentence_what_partial_ratio_alone_finds():
    # _best_partial asks partial_ratio only of the sentences whose LCS bound reaches the cut-off: over the book's
    # sentences, their rewordings, their pieces and other lines, its answer is extractOne's over them all
    from rapidfuzz import fuzz, process

    from bot.diagnose.knowledge.rulebook import load_rulebook
    from bot.diagnose.knowledge.rulebook.match import FUZZY_CUTOFF, _best_partial, _norm, _norm_sentence
    choices = [_norm_sentence(s) for r in load_rulebook() for s in r.fuzzy]
    queries = [c for c in choices[::7]]
    queries += [c.replace(" the ", " a ").replace("not", "never") + " on this machine" for c in choices[3::11]]
    queries += [c[len(c) // 4:] for c in choices[5::13]]
    queries += [c + " " + choices[i - 1] for i, c in enumerate(choices[::17])]
    queries += [" ".join(w for i, w in enumerate(c.split()) if i % 3 != 1) for c in choices[1::9]]    # near misses
    queries += [_norm(line) for line in ("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda "
                                         "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
                                         "OSError: [Errno 24] Too many open files: '/dev/shm/x'",
                                         "ValueError: The model's max seq len (32768) is larger than the maximum")]
    hits = 0
    for q in queries:
        expected = process.extractOne(q, choices, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_CUTOFF, processor=None)
        assert _best_partial(q, choices) == expected, q
        hits += expected is not None
    assert len(queries) // 3 < hits < len(queries) - 20
