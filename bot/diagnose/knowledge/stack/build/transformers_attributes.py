"""What the objects transformers hands a program answer to: the attributes and methods of its base
classes (the tokenizers', configs', models' and processors'), for every release the stack index's
transformers tables cover.

The answer to `AttributeError: Qwen2Tokenizer has no attribute all_special_tokens_extended` (a
tokenizer of transformers 5 under a vLLM written for 4.x) is which releases had the name. Each
release's wheel is read with ranged requests and parsed with `ast` (nothing is imported). A family
is the union of its root classes and of their bases inside transformers (followed through each
file's relative imports), since the object a paste names is a subclass of one of them:

- a class's names are its methods and properties, its class-level assignments (a 5.x config's
  dataclass fields among them), what its methods assign to `self.X`, and the names its
  `__getattr__` serves from `SPECIAL_TOKENS_ATTRIBUTES` (`bos_token`, `bos_token_id`,
  `additional_special_tokens_ids`) or compares the key against (5.x's `extra_special_tokens`).

Only the names that some indexed release of the family lacks are kept: a name every release has,
or none had, says nothing about the version.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from .packages import Packages
from .transformers_exports import _resolve, module_name, pack, release_masks

# The classes a transformers object of each family derives from, by file: 4.x and 5.x names
# (5.x renamed the slow and fast tokenizers' bases PythonBackend and TokenizersBackend, and
# PretrainedConfig PreTrainedConfig); a file or class a release lacks is skipped.
ROOTS = {
    "tokenizer": (("transformers/tokenization_utils_base.py", "PreTrainedTokenizerBase"),
                  ("transformers/tokenization_utils.py", "PreTrainedTokenizer"),
                  ("transformers/tokenization_utils_fast.py", "PreTrainedTokenizerFast"),
                  ("transformers/tokenization_python.py", "PythonBackend"),
                  ("transformers/tokenization_utils_tokenizers.py", "TokenizersBackend"),
                  ("transformers/tokenization_utils_sentencepiece.py", "SentencePieceBackend")),
    "config": (("transformers/configuration_utils.py", "PretrainedConfig"),
               ("transformers/configuration_utils.py", "PreTrainedConfig")),
    # generation: the models that generate derive from GenerationMixin themselves since 4.50
    "model": (("transformers/modeling_utils.py", "PreTrainedModel"),
              ("transformers/generation/utils.py", "GenerationMixin")),
    "processor": (("transformers/processing_utils.py", "ProcessorMixin"),),
    # the KV cache a model's own code (remote code above all) is handed: 4.56 replaced DynamicCache's key_cache /
    # value_cache lists by `layers`, earlier releases dropped get_max_length and seen_tokens
    "cache": (("transformers/cache_utils.py", "DynamicCache"),),
}
MAX_DEPTH = 6
# Each model's config classes (transformers/models/<model>/configuration_<model>.py), family "config:<Class>": the
# fields the class itself declares or sets (`self.rope_theta = rope_theta` in 4.x, gone in 5.0 where rope_parameters
# holds it), and the keys of its attribute_map, which PretrainedConfig's __getattribute__ serves; its bases up to
# the config root, whose names are the config family's. A class with a lookup of its own in some release is left out.
CONFIG_FILE = re.compile(r"^transformers/models/\w+/configuration_\w+\.py$")
CONFIG_CLASS = re.compile(r"^[A-Z]\w*Config$")
NOT_A_MODEL_CONFIG = re.compile(r"(?:Generation|Onnx|Quantization|Watermarking)Config$")


def scanner_key() -> str:
    source = Path(__file__).read_text().split("# --- every release")[0]
    return hashlib.sha1(source.encode()).hexdigest()[:12]


# --- one class --------------------------------------------------------------------------------------

def _self_attributes(fn: ast.AST) -> set[str]:
    """`self.X = ...` (and `self.X: T = ...`, `self.X += ...`, `setattr(self, "X", ...)`) in a method."""
    out = set()
    for node in ast.walk(fn):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
                    out.add(e.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "self" \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            out.add(node.args[1].value)
    return out


def _id_form(token: str) -> str:
    """The id attribute `__getattr__` serves beside a special token: bos_token → bos_token_id,
    additional_special_tokens → additional_special_tokens_ids."""
    return token + ("_ids" if token.endswith("s") else "_id")


def _getattr_names(fn: ast.FunctionDef) -> set[str]:
    """The keys a `__getattr__` answers by comparing with a constant (`key_without_id ==
    "extra_special_tokens"`), with their id forms."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and all(isinstance(op, ast.Eq) for op in node.ops):
            for c in [node.left, *node.comparators]:
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.isidentifier():
                    out |= {c.value, _id_form(c.value)}
    return out


# A class's own attribute lookup: a config that forwards what it lacks to its text_config (Qwen2_5_VLConfig from
# 4.53 on serves `vocab_size` so) answers to more names than it declares.
_LOOKUPS = ("__getattr__", "__getattribute__")
DELEGATES = "(delegates)"


def _map_keys(st: ast.Assign | ast.AnnAssign) -> set[str]:
    """The keys of a config's `attribute_map = {"hidden_size": "n_embd"}`: names its __getattribute__ serves."""
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    if not any(isinstance(t, ast.Name) and t.id == "attribute_map" for t in targets):
        return set()
    return {k.value for k in st.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
            and k.value.isidentifier()}


def class_names(cls: ast.ClassDef) -> set[str]:
    """The attribute and method names one class body gives its instances."""
    names: set[str] = set()
    special: list[str] = []
    for st in cls.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(st.name)
            names |= _self_attributes(st)
            if st.name == "__getattr__":
                names |= _getattr_names(st)
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
                    if t.id == "SPECIAL_TOKENS_ATTRIBUTES" and isinstance(st.value, (ast.List, ast.Tuple)):
                        special += [e.value for e in st.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if isinstance(st.value, ast.Dict):
                names |= _map_keys(st)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            names.add(st.target.id)
            if isinstance(st.value, ast.Dict):
                names |= _map_keys(st)
    names |= {*special, *map(_id_form, special)}
    return {n for n in names if not (n.startswith("__") and n.endswith("__"))}


# --- one file -------------------------------------------------------------------------------------------

def scan_file(path: str, text: str) -> dict:
    """{"classes": {name: {"names": [...], "bases": [...]}}, "aliases": {name: target},
    "imports": {name: module}}: the classes of one file, its `X = Y` aliases of them and where
    its relative imports bring a name from (to follow a base class into its file)."""
    tree = ast.parse(text)
    module = module_name(path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    classes, aliases, imports = {}, {}, {}
    for st in ast.walk(tree):
        if isinstance(st, ast.ClassDef) and st.name not in classes:
            classes[st.name] = {"names": sorted(class_names(st)),
                                "bases": [ast.unparse(b).rpartition(".")[2] for b in st.bases],
                                "delegates": any(isinstance(f, ast.FunctionDef) and f.name in _LOOKUPS for f in st.body)}
        elif isinstance(st, ast.ImportFrom) and st.level:
            for a in st.names:
                imports[a.asname or a.name] = _resolve(package, st.level, st.module)
    for st in tree.body:
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Name):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    aliases[t.id] = st.value.id
    return {"classes": classes, "aliases": aliases, "imports": imports}


# --- one release ------------------------------------------------------------------------------------------

def _path(module: str, namelist: set[str]) -> str | None:
    base = module.replace(".", "/")
    return next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in namelist), None)


def release_attributes(read, namelist: set[str]) -> dict[str, list[str]]:
    """{family: sorted names} of one release. read(path) → scan_file() of that file (None: not in
    the wheel, or not parsed)."""
    out: dict[str, list[str]] = {}
    for family, roots in ROOTS.items():
        names: set[str] = set()
        seen: set[tuple[str, str]] = set()

        def walk(path: str, cls: str, depth: int) -> None:
            if depth > MAX_DEPTH or (path, cls) in seen:
                return
            seen.add((path, cls))
            scan = read(path) if path in namelist else None
            if scan is None:
                return
            cls = scan["aliases"].get(cls, cls)
            if cls in scan["classes"]:
                c = scan["classes"][cls]
                names.update(c["names"])
                for base in c["bases"]:
                    if base in scan["classes"]:
                        walk(path, base, depth + 1)
                    elif base in scan["imports"]:
                        found = _path(scan["imports"][base], namelist)
                        if found:
                            walk(found, base, depth + 1)
            elif cls in scan["imports"]:          # re-exported from another module
                found = _path(scan["imports"][cls], namelist)
                if found:
                    walk(found, cls, depth + 1)

        for path, cls in roots:
            walk(path, cls, 0)
        if names:
            out[family] = sorted(names)
    out.update(config_classes(read, namelist))
    return out


def config_classes(read, namelist: set[str]) -> dict[str, list[str]]:
    """{"config:<Class>": sorted names} of each model's config classes in one release: the class's own names and
    those of its bases inside transformers up to the config root (whose names are the config family's)."""
    roots = {cls for _, cls in ROOTS["config"]}
    out: dict[str, list[str]] = {}
    for path in sorted(p for p in namelist if CONFIG_FILE.match(p)):
        scan = read(path)
        if scan is None:
            continue
        for cls in scan["classes"]:
            if not CONFIG_CLASS.match(cls) or NOT_A_MODEL_CONFIG.search(cls) or cls in roots:
                continue
            names: set[str] = set()
            seen: set[tuple[str, str]] = set()

            def walk(p: str, c: str, depth: int, sc: dict) -> None:
                if depth > MAX_DEPTH or (p, c) in seen or c in roots:
                    return
                seen.add((p, c))
                c = sc["aliases"].get(c, c)
                if c in sc["classes"]:
                    names.update(sc["classes"][c]["names"])
                    if sc["classes"][c].get("delegates"):
                        names.add(DELEGATES)
                    for base in sc["classes"][c]["bases"]:
                        if base in roots:
                            continue
                        if base in sc["classes"]:
                            walk(p, base, depth + 1, sc)
                        elif base in sc["imports"]:
                            found = _path(sc["imports"][base], namelist)
                            other = read(found) if found else None
                            if other is not None:
                                walk(found, base, depth + 1, other)

            walk(path, cls, 0, scan)
            if names:
                out[f"config:{cls}"] = sorted(names)
    return out


# --- every release -----------------------------------------------------------------------------------

_SCANNED: dict[tuple[str, bytes], dict | None] = {}


def read_release(pypi: Packages, wheel: dict) -> dict[str, list[str]]:
    """{family: names} of one wheel, kept by its file name (a file on PyPI never changes)."""
    def make():
        z = pypi.remote(wheel)
        namelist = set(z.namelist())
        # the models' config files in one read (a request each would be hundreds a release)
        texts: dict[str, str] = z.texts(sorted(p for p in namelist if CONFIG_FILE.match(p)))

        def read(path: str) -> dict | None:
            if path not in texts:
                texts.update(z.texts([path]))
            text = texts.get(path)
            if text is None:
                return None
            key = (path, hashlib.sha1(text.encode()).digest())
            if key not in _SCANNED:
                try:
                    _SCANNED[key] = scan_file(path, text)
                except SyntaxError:
                    _SCANNED[key] = None
            return _SCANNED[key]

        return release_attributes(read, namelist)

    kind = f"transformers-attributes-{scanner_key()}"
    pypi.prune("transformers-attributes-", kind)
    return pypi.memo(kind, wheel["filename"], make)


def build(pypi: Packages, since: str, log=print, releases: list[str] | None = None) -> dict:
    """{"releases": [...], "families": {family: packed groups (pack())}, "source"}: the names some
    release of the family lacks, every release from `since` on (or `releases`: those of the other tables)."""
    releases, masks = release_masks(pypi, since, read_release, bool, "base class", log=log, releases=releases)
    # a config class that serves names through its own lookup in some release: what it declares is not all it has;
    # a model config class's row is read with its config root's (own_changing: an override it dropped is no removal)
    families = {f: pack(own_changing(masks[f], masks.get("config", {})) if f.startswith("config:") else changing(masks[f]))
                for f in sorted(masks) if DELEGATES not in masks[f]}
    return {"releases": releases, "families": {f: v for f, v in families.items() if v},
            "roots": {f: [c for _, c in roots] for f, roots in ROOTS.items()},
            "source": f"transformers wheels on PyPI, every release from {since}: the methods, properties, "
                      "class-level and self.X assignments (and the special tokens __getattr__ serves) of "
                      "the tokenizer, config, model and processor base classes, DynamicCache, and of their bases inside "
                      "transformers, and each model's config classes (config:<Class>: their own fields and "
                      "attribute_map keys, with the config base classes' names in the releases the class is in) (ast); only the "
                      "names some release lacks"}


def changing(row: dict[str, int]) -> dict[str, int]:
    """The names whose releases are not all the family's: a name every release has says nothing."""
    full = 0
    for m in row.values():
        full |= m
    return {n: m for n, m in row.items() if m != full}


def own_changing(row: dict[str, int], base: dict[str, int]) -> dict[str, int]:
    """changing() of a model config class's row (config:<Class>) read with its config root's, `base` (the config
    family's masks, every name). The reader answers a name the row lacks by the root's row, and one it has by the
    releases either has it in (attribute_names._with_bases).

    - A name the root has in a release the class is in counts as the class's there: an override the class dropped
      (DPTConfig's to_dict, its own up to 4.57.6, PreTrainedConfig's in every release) is no removal; a name the root
      has in every release says nothing of the class's version and goes.
    - A name of the class's own that the root makes whole (Qwen2Config's pad_token_id: the root's up to
      4.57.6, the class's own from 5.0.0 on) stays, with all the class's releases: without it the reader would take
      the root's removal for the class's. A name the class has throughout by itself is left to the root's row, as
      changing() leaves it.
    A class's releases are those its row has names in: the root's other releases are not the class's."""
    present = every = 0
    for m in row.values():
        present |= m
    for m in base.values():
        every |= m
    out = {}
    for n, m in row.items():
        merged = m | (base.get(n, 0) & present)
        if merged != present or (m != present and base.get(n, every) != every):
            out[n] = merged
    return out
