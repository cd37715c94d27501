"""The condition scan_raises gives each raise site: true of every path that reaches the raise."""

import ast
import textwrap

from bot.diagnose.knowledge import scan_raises
from bot.diagnose.knowledge.scan_raises import MAX_CONDITION_CHARS, scan


def conditions(src: str) -> dict[str, str | None]:
    """{the raise's message: its condition}."""
    out = {}
    for site in scan(ast.parse(textwrap.dedent(src))):
        out["".join(v for _, v in site["parts"])] = site["condition"]
    return out


def holds(condition: str, **values) -> bool:
    return eval(condition, {}, values)


def test_an_else_after_an_elif_chain_holds_when_none_of_its_tests_did():
    # vLLM 0.26.0 get_rope: the raise of the final else is reached for any type the chain does not name
    got = conditions("""
        def get_rope(scaling_type, dual):
            if dual is not None:
                return 0
            elif scaling_type == "default":
                return 1
            elif scaling_type in ["deepseek_yarn", "deepseek_llama_scaling"]:
                return 2
            elif scaling_type == "telechat3-yarn":
                return 3
            else:
                raise ValueError(f"Unknown RoPE scaling type {scaling_type}")
    """)
    cond = got["Unknown RoPE scaling type scaling_type"]
    assert cond == ("dual is None and scaling_type not in "
                    "('default', 'deepseek_yarn', 'deepseek_llama_scaling', 'telechat3-yarn')")
    assert holds(cond, dual=None, scaling_type="nope")
    assert not holds(cond, dual=None, scaling_type="default")     # not `not (... == 'telechat3-yarn')`


def test_one_name_against_constants_is_said_compactly_and_exactly():
    got = conditions("""
        def f(kind, backend):
            if kind == "a":
                pass
            elif "b" == kind:
                pass
            elif kind in ("c", "a"):
                pass
            else:
                raise ValueError("unsupported kind of thing")
            if backend == Backend.MARLIN:
                pass
            elif backend == Backend.TRITON:
                pass
            else:
                raise ValueError("unsupported backend of thing")
    """)
    assert got["unsupported kind of thing"] == "kind not in ('a', 'b', 'c')"
    assert got["unsupported backend of thing"] == "backend not in (Backend.MARLIN, Backend.TRITON)"


def test_other_chains_are_a_conjunction_of_each_test_negated():
    got = conditions("""
        def f(x, y, params):
            if x > 1:
                pass
            elif not y:
                pass
            elif "alpha" in params:
                pass
            elif isinstance(x, int):
                pass
            else:
                raise ValueError("neither way worked here")
    """)
    cond = got["neither way worked here"]
    assert cond == "not (x > 1) and y and 'alpha' not in params and not isinstance(x, int)"
    assert holds(cond, x=0.5, y=True, params={}, isinstance=isinstance)


def test_a_single_if_else_and_each_branch_keep_their_old_wording():
    got = conditions("""
        def f(x, y):
            if x > 1:
                raise ValueError("x is too large here")
            elif y is None:
                raise ValueError("y is missing here")
            if x:
                pass
            else:
                raise ValueError("x is unset here")
    """)
    assert got == {"x is too large here": "x > 1", "y is missing here": "y is None",
                   "x is unset here": "not (x)"}


def test_a_chain_too_long_is_cut_visibly_never_to_its_last_test():
    tests = "".join(f"    elif x.some_long_attribute_name_{i} > limit_{i}:\n        pass\n" for i in range(20))
    src = "def f(x):\n    if x.first:\n        pass\n" + tests + "    else:\n        raise ValueError('none of them held here')\n"
    cond = conditions(src)["none of them held here"]
    assert len(cond) <= MAX_CONDITION_CHARS
    assert cond.startswith("not x.first and not (x.some_long_attribute_name_0 > limit_0)")
    assert cond.endswith(" and …")
    one = scan_raises.none_held([ast.parse("x == '" + "a" * 400 + "'", mode="eval").body,
                                 ast.parse("y > 2", mode="eval").body])
    assert one.endswith("…") and len(one) <= MAX_CONDITION_CHARS


def test_a_raise_after_exit_guards_holds_when_none_of_them_did():
    got = conditions("""
        def f(modality, data):
            if modality.startswith("image"):
                return 1
            if modality.startswith("video"):
                return 2
            raise ValueError("Only image or video modality is supported")

        def g(kind):
            if kind == "a":
                return 1
            elif kind == "b":
                return 2
            msg = f"unknown kind {kind}"
            raise ValueError(msg)

        def h(kind):
            for k in kind:
                if k == "a":
                    continue
                raise ValueError("only a is allowed here")
    """)
    assert got["Only image or video modality is supported"] == \
        "not modality.startswith('image') and not modality.startswith('video')"
    assert got["unknown kind kind"] == "kind not in ('a', 'b')"
    assert got["only a is allowed here"] == "not (k == 'a')"


def test_guards_that_may_fall_through_or_whose_names_change_say_nothing():
    got = conditions("""
        def f(kind):
            if kind == "a":
                print(kind)
            raise ValueError("falls through from the guard")

        def g(kind):
            if kind == "a":
                return 1
            kind = normalise(kind)
            raise ValueError("the name changed after the guard")

        def h(kind):
            if kind == "a":
                return 1
            else:
                return 2
            raise ValueError("never reached after the guard")
    """)
    assert got == {"falls through from the guard": None, "the name changed after the guard": None,
                   "never reached after the guard": None}


def test_an_enclosing_test_or_handler_is_kept_over_guards():
    got = conditions("""
        try:
            import modelexpress
        except ModuleNotFoundError as exc:
            if exc.name not in {"modelexpress"}:
                raise
            raise ImportError("The backend requires ModelExpress to be installed")

        def f(x, kind):
            if x:
                if kind == "a":
                    return 1
                raise ValueError("only a kind of thing here")
    """)
    assert got["The backend requires ModelExpress to be installed"] == "except ModuleNotFoundError"
    assert got["only a kind of thing here"] == "x"


def test_a_wildcard_case_after_value_cases_is_what_they_do_not_match():
    got = conditions("""
        def f(position_type, request):
            match position_type:
                case "rope":
                    pass
                case "nope" | None:
                    pass
                case _:
                    raise ValueError("Unsupported position encoding type here")
            match request:
                case ChatRequest():
                    pass
                case _:
                    raise ValueError("Unsupported request type here")
    """)
    assert got["Unsupported position encoding type here"] == "position_type not in ('rope', 'nope', None)"
    assert got["Unsupported request type here"] == "case _"


def test_the_conditions_read_aloud():
    from bot.diagnose.knowledge.vllm import conditions as words
    assert words.words("kind not in ('a', 'b')") == "vLLM raises this when `kind` is not one of `('a', 'b')`."
    assert words.words("kind not in ('a', 'b')", "zh") == "当 `kind` 不属于 `('a', 'b')` 时 vLLM 抛出这个错误。"
    assert words.words("dual is None and not (x > 1)") == \
        "vLLM raises this when `dual` is not set (None) and `x` is at most `1`."
    assert words.words("not (x > 1) and …") is None           # cut: the code is shown as it is
