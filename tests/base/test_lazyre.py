"""bot/base/lazyre.py: a module-level pattern that compiles on first use and then costs what a compiled one does."""

import re

from bot.base.lazyre import LazyRe


def test_it_compiles_on_first_use_and_keeps_what_it_handed_out():
    rx = LazyRe(r"(?P<code>\d+) errors?", re.I)
    assert "_rx" not in rx.__dict__                      # nothing compiled at import
    m = rx.search("3 ERRORS found")
    assert m.group("code") == "3"
    assert rx.__dict__["_rx"].flags & re.I
    # the bound method is now an instance attribute: the second lookup does not go through __getattr__
    assert rx.__dict__["search"] == rx.search
    assert rx.sub("n", "1 error, 22 errors") == "n, n"
    assert rx.pattern == r"(?P<code>\d+) errors?" and rx.groupindex["code"] == 1


def test_a_bad_pattern_fails_where_it_is_used_not_at_import():
    rx = LazyRe(r"(unclosed")
    try:
        rx.search("x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern compiled")
