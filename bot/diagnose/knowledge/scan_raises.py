"""Raise sites of one Python module: exception class, message template, function, condition.

Shared by the builds of two knowledge sources, vLLM's index (knowledge/vllm/build) and the
stack's (knowledge/stack/build): it sits below both, beside the Candidate face, and is no source
itself; never imported at diagnosis time. A message becomes a list of parts: literal text and
named placeholders, one per formatted field, from f-strings, `%` formatting, `str.format`, string
concatenation, and a message built in a local (or module) variable before the raise
(`msg = f"..."; msg += "..."; raise ValueError(msg)`). `assert cond, msg` is an AssertionError site
whose condition is the assert's own test.
"""

from __future__ import annotations

import ast
import re
import string

# A placeholder name is the formatted expression's source, shortened: `{self.max_model_len}` is
# `{max_model_len}`; braces become parentheses so the template stays parseable.
MAX_PLACEHOLDER_CHARS = 48
# A site both indexes keep: at least this much literal text (a message made mostly of its fields
# cannot be told apart), and not worded exactly as Python itself words it (CPython's import system,
# getattr, enum): a user's "No module named 'x'" almost never comes from a package's copy of it.
MIN_LITERAL_WORDS = 2
MIN_LITERAL_CHARS = 12
PYTHON_TEXTS = re.compile("|".join(f"(?:{p})" for p in (
    r"No module named '?\{\}'?\.?",
    r"module '?\{\}'? has no attribute '?\{\}'?",
    r"'?\{\}'? object has no attribute '?\{\}'?",
    r"'?\{\}'? object is not (?:callable|subscriptable|iterable)",
    r"\{\} is not a valid \{\}",
    r"cannot import name '?\{\}'? from '?\{\}'?",
)))
MAX_CONDITION_CHARS = 300
MAX_RESOLVE_DEPTH = 4

_PERCENT = re.compile(r"%(?:\((?P<key>\w+)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])")
_WORD = re.compile(r"[A-Za-z]{2,}")
_EXCEPTION_NAME = re.compile(r"^[A-Z]\w*$")


def placeholder_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "repr") \
            and len(node.args) == 1:
        node = node.args[0]
    src = ast.unparse(node)
    src = re.sub(r"\bself\.", "", src).replace("{", "(").replace("}", ")")
    src = " ".join(src.split())
    return src if len(src) <= MAX_PLACEHOLDER_CHARS else src[: MAX_PLACEHOLDER_CHARS - 1] + "…"


class Parts(list):
    """[("lit", text) | ("ph", name), ...] with adjacent literals merged."""

    def lit(self, text: str) -> "Parts":
        if text:
            if self and self[-1][0] == "lit":
                self[-1] = ("lit", self[-1][1] + text)
            else:
                self.append(("lit", text))
        return self

    def ph(self, name: str) -> "Parts":
        self.append(("ph", name))
        return self

    def extend_parts(self, other: "Parts") -> "Parts":
        for kind, value in other:
            self.lit(value) if kind == "lit" else self.ph(value)
        return self


def render(parts: Parts) -> str:
    """The template string: literal braces doubled, placeholders as {name}."""
    out = []
    for kind, value in parts:
        out.append(value.replace("{", "{{").replace("}", "}}") if kind == "lit" else "{" + value + "}")
    return "".join(out)


def literal_stats(parts: Parts) -> tuple[int, int]:
    """(literal words, literal non-space characters) of a template."""
    text = "".join(v for k, v in parts if k == "lit")
    return len(_WORD.findall(text)), len("".join(text.split()))


def is_stringish(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr) \
        or (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)) and is_stringish(node.left))


class Scope:
    """Assignments of one function (or the module) to plain names, to resolve `raise X(msg)`."""

    def __init__(self, body: list[ast.stmt], parent: "Scope | None" = None):
        self.parent = parent
        self.assigns: dict[str, list[tuple[int, str, ast.expr]]] = {}
        for node in _walk_no_nested(body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.assigns.setdefault(node.targets[0].id, []).append((node.lineno, "=", node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.assigns.setdefault(node.target.id, []).append((node.lineno, "=", node.value))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
                self.assigns.setdefault(node.target.id, []).append((node.lineno, "+=", node.value))
        for entries in self.assigns.values():
            entries.sort(key=lambda e: e[0])

    def value_at(self, name: str, line: int) -> list[ast.expr] | None:
        """The expressions whose concatenation `name` holds at `line` (None when unknown)."""
        entries = [e for e in self.assigns.get(name, ()) if e[0] < line]
        start = max((i for i, e in enumerate(entries) if e[1] == "="), default=None)
        if start is None:
            return self.parent.value_at(name, line) if self.parent and not entries else None
        return [e[2] for e in entries[start:]]


def _walk_no_nested(body: list[ast.stmt]):
    """Every node of a body, not descending into nested functions or classes."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def message_parts(node: ast.expr, scope: Scope | None, line: int, depth: int = 0) -> Parts:
    """The message an expression formats, as literal parts and placeholders."""
    out = Parts()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return out.lit(node.value)
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.lit(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                if isinstance(v.value, ast.Constant) and isinstance(v.value.value, str) and v.conversion == -1:
                    out.lit(v.value.value)
                else:
                    out.ph(placeholder_name(v.value))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        out.extend_parts(message_parts(node.left, scope, line, depth))
        return out.extend_parts(message_parts(node.right, scope, line, depth))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        return _percent(node.left.value, node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return _format(node.func.value.value, node)
    if isinstance(node, ast.Name) and scope is not None and depth < MAX_RESOLVE_DEPTH:
        values = scope.value_at(node.id, line)
        if values:
            for v in values:
                out.extend_parts(message_parts(v, scope, line, depth + 1))
            return out
    return out.ph(placeholder_name(node))


def _percent(fmt: str, right: ast.expr) -> Parts:
    out = Parts()
    values = list(right.elts) if isinstance(right, ast.Tuple) else [right]
    keyed = {}
    if isinstance(right, ast.Dict):
        keyed = {k.value: v for k, v in zip(right.keys, right.values) if isinstance(k, ast.Constant)}
    pos = 0
    i = 0
    for m in _PERCENT.finditer(fmt):
        out.lit(fmt[pos:m.start()])
        pos = m.end()
        if m.group("conv") == "%":
            out.lit("%")
        elif m.group("key"):
            v = keyed.get(m.group("key"))
            out.ph(placeholder_name(v) if v is not None else m.group("key"))
        else:
            _value(out, values[i]) if i < len(values) else out.ph(f"arg{i}")
            i += 1
    return out.lit(fmt[pos:])


def _value(out: Parts, node: ast.expr) -> None:
    """A formatted value: a constant is literal text, anything else a placeholder."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)) and not isinstance(node.value, bool):
        out.lit(str(node.value))
    else:
        out.ph(placeholder_name(node))


def _format(fmt: str, call: ast.Call) -> Parts:
    out = Parts()
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    auto = 0
    try:
        pieces = list(string.Formatter().parse(fmt))
    except ValueError:
        return out.lit(fmt)
    for literal, field, _spec, _conv in pieces:
        out.lit(literal)
        if field is None:
            continue
        head, _, rest = field.partition(".")
        head, _, _ = head.partition("[")
        if head == "":
            node = call.args[auto] if auto < len(call.args) else None
            auto += 1
        elif head.isdigit():
            node = call.args[int(head)] if int(head) < len(call.args) else None
        else:
            node = kw.get(head)
        if node is not None and not rest:
            _value(out, node)
        else:
            out.ph((placeholder_name(node) if node is not None else head or f"arg{auto}") + ("." + rest if rest else ""))
    return out


def exception_name(node: ast.expr | None) -> str | None:
    """The class a raise statement raises, when it reads like one (not `raise e`)."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        name = target.attr
    elif isinstance(target, ast.Name):
        name = target.id
    else:
        return None
    return name if _EXCEPTION_NAME.match(name) else None


def raise_message(node: ast.expr, scope: Scope, line: int) -> Parts | None:
    """The message of `raise X(...)`: its first argument, or all of them when all are strings (vLLM
    prints `RuntimeError('a', 'b')`, which the diagnosis joins back into one text)."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    args = node.args
    if len(args) > 1 and all(is_stringish(a) for a in args):
        out = Parts()
        for a in args:
            out.extend_parts(message_parts(a, scope, line))
        return out
    if isinstance(args[0], ast.Starred):
        return None
    return message_parts(args[0], scope, line)


def condition_text(node: ast.AST, negate: bool = False) -> str:
    src = _code(node)
    if negate:
        src = f"not ({src})"
    return src if len(src) <= MAX_CONDITION_CHARS else src[: MAX_CONDITION_CHARS - 1] + "…"


def none_held(tests: list[ast.expr]) -> str:
    """The condition under which the code after a chain of tests runs when none of them held: the
    `else:` of `if a: ... elif b: ... else:`, or what follows `if a: return ...` guards. One test is
    `not (a)`, as before; a run of tests that each compare one name with constants (`x == 'a'`, `x in
    ('b', 'c')`) is `x not in ('a', 'b', 'c')`; `x is not None` is `x is None` (a negation that is
    exact); any other test is `not (a)`, all joined by `and`. Longer than MAX_CONDITION_CHARS, it is
    cut visibly (`…`): never one negated test standing for the whole chain."""
    if len(tests) == 1:
        return condition_text(tests[0], negate=True)
    terms: list[str] = []
    run: list[ast.expr] = []                 # tests of one name against constants, in a row
    for t in tests + [None]:
        if t is not None and _subject(t) is not None and (not run or _subject(run[0]) == _subject(t)):
            run.append(t)
            continue
        if len(run) > 1:
            terms.append(_code(_one_name_constants(run)))
        elif run:
            terms.append(_negated(run[0]))
        run = []
        if t is not None and _subject(t) is not None:
            run = [t]
        elif t is not None:
            terms.append(_negated(t))
    text = " and ".join(terms)
    if len(text) <= MAX_CONDITION_CHARS:
        return text
    kept: list[str] = []
    for term in terms:
        if len(" and ".join(kept + [term, "…"])) > MAX_CONDITION_CHARS:
            break
        kept.append(term)
    if len(" and ".join(kept)) >= MAX_CONDITION_CHARS * 0.6:
        return " and ".join(kept + ["…"])            # cut between terms
    return text[: MAX_CONDITION_CHARS - 1] + "…"     # cut inside a term


def _code(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


_EXACT_NEGATION = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
                   ast.In: ast.NotIn, ast.NotIn: ast.In}


def _negated(test: ast.expr) -> str:
    """`not test` as code: `x is None` for `x is not None`, `x` for `not x`, else `not (test)`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _code(test.operand) if isinstance(test.operand, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) \
            else f"({_code(test.operand)})"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _EXACT_NEGATION:
        return _code(ast.Compare(left=test.left, ops=[_EXACT_NEGATION[type(test.ops[0])]()],
                                 comparators=test.comparators))
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        return f"not {_code(test)}"
    return f"not ({_code(test)})"


def _value_like(node: ast.expr) -> bool:
    """A constant, or a named constant or enum member (`Fp8MoeBackend.MARLIN`, `PlatformEnum.CUDA`)."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)) \
        and node.attr.isupper()


def _subject(test: ast.expr) -> str | None:
    """`x` of `x == constant` (or `constant == x`) and of `x in (constants)`; None for other tests."""
    pair = _compared(test)
    return _code(pair[0]) if pair else None


def _compared(test: ast.expr) -> tuple[ast.expr, list[ast.expr]] | None:
    """(x, the values) of `x == value`, `value == x`, `x in (values)`: a value is a constant or an enum
    member (`Fp8MoeBackend.MARLIN`); `not (x == a) and not (x == b)` is `x not in (a, b)` exactly."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.In):
        if isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts and all(_value_like(e) for e in right.elts) \
                and not isinstance(left, ast.Constant):
            return left, list(right.elts)
        return None
    if not isinstance(op, ast.Eq):
        return None
    for x, v in ((left, right), (right, left)):
        if isinstance(v, ast.Constant) and not isinstance(x, ast.Constant):
            return x, [v]
    for x, v in ((left, right), (right, left)):
        if _value_like(v) and not _value_like(x):
            return x, [v]
    return None


def _key(node: ast.expr):
    return (type(node.value), node.value) if isinstance(node, ast.Constant) else _code(node)


def _one_name_constants(tests: list[ast.expr]) -> ast.expr:
    """`x not in (c1, c2, ...)` of tests that are each `x == c` or `x in (constants)` (_subject)."""
    values: list[ast.expr] = []
    for t in tests:
        values += [v for v in _compared(t)[1] if all(_key(v) != _key(w) for w in values)]
    return ast.Compare(left=_compared(tests[0])[0], ops=[ast.NotIn()],
                       comparators=[ast.Tuple(elts=values, ctx=ast.Load())])


def scan(tree: ast.Module) -> list[dict]:
    """Every raise/assert site of a module: {exc, parts, line, function, condition}."""
    out: list[dict] = []
    _visit(tree.body, Scope(tree.body), [], None, out)
    return out


def _visit(body: list[ast.stmt], scope: Scope, names: list[str], cond: str | None, out: list[dict]) -> None:
    guards: list[ast.expr] = []             # tests of the exit guards right above (`if a: return x`)
    for node in body:
        if guards and isinstance(node, ast.Raise) and cond is None:
            # `if a: return x` / `elif b: return y` then `raise`: reached when none of them held (only
            # where nothing else is said of it: an enclosing test or `except X` stays what is said)
            _visit_stmt(node, scope, names, none_held(guards), out)
            guards = []
            continue
        _visit_stmt(node, scope, names, cond, out)
        if isinstance(node, ast.If):
            tests, final = _chain(node)
            if not final and all(_exits(b.body) for b in _branches(node)):
                guards += tests
                continue
        if guards and _keeps(node, guards):
            continue                            # `msg = f"..."` between the guards and the raise
        guards = []


def _chain(node: ast.If) -> tuple[list[ast.expr], list[ast.stmt]]:
    """(the tests of `if a: ... elif b: ...`, the body of its final `else:`, [] when none)."""
    branches = _branches(node)
    return [b.test for b in branches], branches[-1].orelse


def _branches(node: ast.If) -> list[ast.If]:
    """`if a:` and each `elif` after it, in order."""
    out = [node]
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        node = node.orelse[0]
        out.append(node)
    return out


def _exits(body: list[ast.stmt]) -> bool:
    """Whether a branch ends by leaving the block (return, raise, continue, break)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _keeps(node: ast.stmt, guards: list[ast.expr]) -> bool:
    """A statement between guards and a raise that cannot leave the block or change what the guards
    tested: an assignment to a name none of them reads (`msg = ...`), a docstring, `pass`."""
    if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
        return True
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return False
    if not all(isinstance(t, ast.Name) for t in targets):
        return False
    read = {n.id for g in guards for n in ast.walk(g) if isinstance(n, ast.Name)}
    return not any(t.id in read for t in targets)


def _visit_stmt(node: ast.stmt, scope: Scope, names: list[str], cond: str | None, out: list[dict]) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        _visit(node.body, Scope(node.body, scope), names + [node.name], None, out)
    elif isinstance(node, ast.ClassDef):
        _visit(node.body, scope, names + [node.name], None, out)
    elif isinstance(node, ast.If):
        # `if a: ... elif b: ... else: E`: each branch's body holds its own test; E holds when none
        # of the chain's tests did (not only the last: `not (b)` alone would be false of E)
        tests, final = _chain(node)
        for branch in _branches(node):
            _visit(branch.body, scope, names, condition_text(branch.test), out)
        if final:
            _visit(final, scope, names, none_held(tests), out)
    elif isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, getattr(ast, "TryStar"))):
        _visit(node.body, scope, names, cond, out)
        for h in node.handlers:
            caught = "except " + (ast.unparse(h.type) if h.type is not None else "")
            _visit(h.body, scope, names, caught.strip(), out)
        _visit(node.orelse, scope, names, cond, out)
        _visit(node.finalbody, scope, names, cond, out)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        _visit(node.body, scope, names, cond, out)
        _visit(getattr(node, "orelse", []), scope, names, cond, out)
    elif isinstance(node, ast.Match):
        for i, case in enumerate(node.cases):
            _visit(case.body, scope, names, _case_condition(node, i), out)
    elif isinstance(node, ast.Raise):
        exc = exception_name(node.exc)
        if exc:
            parts = raise_message(node.exc, scope, node.lineno)
            site = {"exc": exc, "parts": parts, "line": node.lineno, "function": ".".join(names),
                    "condition": cond}
            if isinstance(node.exc, ast.Call):
                site["call"] = call_arguments(node.exc)
            out.append(site)
    elif isinstance(node, ast.Assert) and node.msg is not None:
        out.append({"exc": "AssertionError", "parts": message_parts(node.msg, scope, node.lineno),
                    "line": node.lineno, "function": ".".join(names),
                    "condition": "assert " + condition_text(node.test)})


def _case_condition(node: ast.Match, i: int) -> str:
    """`case 'rope'` for a case's body; for `case _:` after cases that each match constants
    (`case 'rope' | 'nope'`), what it means: `position_type not in ('rope', 'nope')`."""
    case = node.cases[i]
    wildcard = isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None and case.guard is None
    if wildcard and i > 0:
        values: list[ast.expr] = []
        for before in node.cases[:i]:
            found = _constants(before.pattern) if before.guard is None else None
            if found is None:
                break
            values += found
        else:
            tests = [ast.Compare(left=node.subject, ops=[ast.Eq()], comparators=[v]) for v in values]
            return none_held(tests)
    return "case " + ast.unparse(case.pattern)


def _constants(pattern: ast.pattern) -> list[ast.expr] | None:
    """The constants a value pattern matches (`'a'`, `'a' | 'b'`, `None`), None for any other pattern."""
    if isinstance(pattern, ast.MatchValue) and isinstance(pattern.value, ast.Constant):
        return [pattern.value]
    if isinstance(pattern, ast.MatchSingleton):
        return [ast.Constant(value=pattern.value)]
    if isinstance(pattern, ast.MatchOr):
        found = [_constants(p) for p in pattern.patterns]
        return None if any(f is None for f in found) else [v for f in found for v in f]
    return None


# --- exceptions that word their own message ------------------------------------------------------

def _arg_parts(node: ast.expr) -> Parts:
    out = Parts()
    _value(out, node)
    return out


def call_arguments(call: ast.Call) -> dict:
    """The arguments of `raise X(a, b=c)`, each as message parts, to fill X's own wording."""
    return {"args": [_arg_parts(a) for a in call.args if not isinstance(a, ast.Starred)],
            "kwargs": {k.arg: _arg_parts(k.value) for k in call.keywords if k.arg}}


def exception_messages(tree: ast.Module) -> dict[str, dict]:
    """Exception classes of a module that word their message in `__init__`
    (`super().__init__(f"Loading lora {lora_name} failed ...")`, `self.message = ...`):
    {class: {"bases": [...], "params": [...], "parts": Parts | None}}."""
    out: dict[str, dict] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        rec: dict = {"bases": [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases],
                     "params": [], "parts": None}
        init = next((st for st in node.body if isinstance(st, ast.FunctionDef) and st.name == "__init__"), None)
        if init is not None:
            rec["params"] = [a.arg for a in init.args.posonlyargs + init.args.args][1:] + \
                [a.arg for a in init.args.kwonlyargs]
            msg = _init_message(init)
            if msg is not None:
                rec["parts"] = message_parts(msg[0], Scope(init.body), msg[1])
        out[node.name] = rec
    return out


def _init_message(init: ast.FunctionDef) -> tuple[ast.expr, int] | None:
    for st in ast.walk(init):
        if isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute) and st.func.attr == "__init__" and st.args:
            first = st.args[0]
            if isinstance(first, ast.Name) and first.id == "self":       # Base.__init__(self, msg)
                first = st.args[1] if len(st.args) > 1 else None
            if first is not None:
                return first, st.lineno
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute) \
                and isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == "self" \
                and st.targets[0].attr in ("message", "msg"):
            return st.value, st.lineno
    return None


def own_wording(site: dict, classes: dict[str, dict]) -> Parts | None:
    """The message an exception class words itself, with the raise's arguments in its fields."""
    name, rec = site["exc"], None
    for _ in range(4):
        rec = classes.get(name)
        if rec is None or rec["parts"] is not None:
            break
        name = next((b for b in rec["bases"] if b in classes), None)
        if name is None:
            return None
    if rec is None or rec["parts"] is None or "call" not in site:
        return None
    words, _ = literal_stats(rec["parts"])
    if words < 2:
        return None             # the class passes its caller's message through
    args, kwargs = site["call"]["args"], site["call"]["kwargs"]
    bound = dict(zip(rec["params"], args))
    bound.update({k: v for k, v in kwargs.items() if k in rec["params"]})
    out = Parts()
    for kind, value in rec["parts"]:
        if kind == "ph" and value in bound:
            out.extend_parts(bound[value])
        elif kind == "ph":
            out.ph(value)
        else:
            out.lit(value)
    return out
