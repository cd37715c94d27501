"""An attribute a transformers object lacks: `AttributeError: Qwen2Tokenizer has no attribute
all_special_tokens_extended` (the tokenizer's own `__getattr__`) and `AttributeError: 'Qwen2Config'
object has no attribute 'pad_token_id'` (Python's), against the stack index's table of what the
base classes of transformers' tokenizers, configs, models and processors have in each release
(build/transformers_attributes.py).

The object must be transformers': the raising frame is its base class's own attribute lookup, or
its class is one transformers exports from a model's tokenization/configuration/modeling/processing
module (or a base class itself). Another library's object (vLLM's MistralTokenizer read by
transformers' processor code) or a model's remote config lacking a field of its own is not the
version's doing: those are left unanswered.

A model's config class is also read against its own row of that table (config:<Class>: the fields the class
itself declares, `self.X` in 4.x's __init__, and its attribute_map's keys), and DynamicCache (family `cache`) against
its own: the names a model's remote code reads off the cache it is handed.

history() gives the at_* values both answers are filled with: the stack family `attribute-name`
and the hand-written `transformers-version-mismatch` (its tokenizer pattern, vLLM printed the log).
"""

from __future__ import annotations


from bot.base import regex_cache

from .import_names import describe

# transformers' tokenizer `__getattr__` words its miss without quotes; Python quotes both names. Xinference
# puts its actor's address before the message of an error its model worker raised ("[address=0.0.0.0:41231,
# pid=880] Qwen2Tokenizer has no attribute ...").
_OWN_WORDING = regex_cache.compile(r"^(?:AttributeError: )?(?:\[address=[^\]]{1,200}\]\s*)?(?P<cls>[A-Za-z_]\w*) has no attribute (?P<name>[A-Za-z_]\w*)")
_PYTHON_WORDING = regex_cache.compile(r"^(?:AttributeError: )?(?:\[address=[^\]]{1,200}\]\s*)?'(?P<cls>[A-Za-z_]\w*)' object has no attribute '(?P<name>[A-Za-z_]\w*)'")

# The base classes' own lookups: a miss raised there is an object of that family, whatever its class
# (a model's remote tokenizer derives from transformers' too).
_OWN_LOOKUP = {("transformers/tokenization_utils_base.py", "__getattr__"): "tokenizer",
               ("transformers/configuration_utils.py", "__getattribute__"): "config",
               ("transformers/configuration_utils.py", "__getattr__"): "config"}

# A class a model's module exports, by the module's kind; the class's name must fit the kind too (a
# modeling module also exports the config class it imports).
_MODEL_MODULE = regex_cache.compile(r"^transformers\.models\.\w+\.(?P<kind>tokenization|configuration|modeling|processing)_\w+$")
_KIND = {"tokenization": "tokenizer", "configuration": "config", "modeling": "model", "processing": "processor"}
_FITS = {"tokenizer": regex_cache.compile(r"Tokeni[sz]er(?:Fast)?$"), "config": regex_cache.compile(r"(?<!Generation)Config$"),
         "model": regex_cache.compile(r"(?:Model|For[A-Z]\w*)$"), "processor": regex_cache.compile(r"Processor$")}
FAMILIES = ("tokenizer", "config", "model", "processor", "cache")
# A model's config class has its own table beside the config base classes' (config:<Class>): its own fields
# (Qwen2Config's `rope_theta`, set by its __init__ up to 4.57.6, held in `rope_parameters` from 5.0.0 on).
OWN_CLASS = "config"
_VLLM_CACHED = "Cached"


def missing_attribute(text: str) -> tuple[str, str, bool] | None:
    """(class, name, worded by transformers) of an AttributeError message; None for another one."""
    found = _PYTHON_WORDING.match(text)
    if found:
        return found.group("cls"), found.group("name"), False
    found = _OWN_WORDING.match(text)
    if found:
        return found.group("cls"), found.group("name"), True
    return None


def family_of(ix, cls: str, frame: tuple[str, str] | None) -> str | None:
    """Which of transformers' object families `cls` is: by the raising frame's lookup, the base
    classes' names, or the model module that exports it; None when it is not transformers'."""
    if frame is not None:
        path, func = frame
        for (file, fn), family in _OWN_LOOKUP.items():
            if func == fn and (path == file or path.endswith("/" + file)):
                return family
    # vLLM's cached tokenizer is a subclass named after the one it wraps (transformers_utils/tokenizer.py:
    # `CachedTokenizer.__name__ = f"Cached{tokenizer.__class__.__name__}"`)
    wrapped = cls.removeprefix(_VLLM_CACHED)
    if wrapped != cls and family_of(ix, wrapped, None) == "tokenizer":
        return "tokenizer"
    for family in FAMILIES:
        if cls in ix.attribute_roots(family):
            return family
    found = set()
    for module in ix.exporting_modules(cls):
        kind = _MODEL_MODULE.match(module)
        if kind and _FITS[_KIND[kind.group("kind")]].search(cls):
            found.add(_KIND[kind.group("kind")])
    return found.pop() if len(found) == 1 else None


def history(ix, family: str, cls: str, name: str, facts: dict, prefix: str = "at") -> dict:
    """{at_*: value} for an attribute the family's base classes gained or lost; {} when the table
    did not see it come or go. prefix "nm": the keys of a missing import's text, which
    transformers-version-mismatch words for both (with nm_attribute set)."""
    rec = ix.attribute_name(family, name)
    own = ix.attribute_name(f"{OWN_CLASS}:{cls}", name) if family == OWN_CLASS else None
    if own is not None:
        rec = own = _with_bases(ix, own, rec)
    if rec is None:
        return {}
    values = describe(ix, rec, ix.attribute_releases(), facts)
    roots = [r for r in ix.attribute_roots(family) if r != cls]
    values.update(nm_cls=cls, nm_family=family, nm_bases=", ".join(f"`{r}`" for r in roots), nm_attribute="yes")
    if own is not None:
        values["nm_own"] = "yes"
    return {f"{prefix}_" + k[len("nm_"):]: v for k, v in values.items()}


def _with_bases(ix, own, base):
    """A config class's row with its base classes' (a name a class stopped declaring as the base took it up,
    `keys_to_ignore_at_inference` in 5.0.0, it still has): the releases either has it in, as one record. The base
    row holds only the names some release of the base lacks; a name the base has in every release (to_dict) the
    build already counted in the class's row (transformers_attributes.own_changing), so it is not there to read."""
    rels = ix.attribute_releases()
    having = set(own.releases) | set(base.releases if base is not None else ())
    if base is None or having == set(own.releases):
        return own
    from .stack_index import ImportName
    at = [i for i, r in enumerate(rels) if r in having]
    added = rels[at[0]] if at[0] > 0 else None
    removed = rels[at[-1] + 1] if at[-1] + 1 < len(rels) else None
    return ImportName(own.module, own.name, [rels[i] for i in at], rels, added, removed, [])


def answerable(values: dict) -> bool:
    """Only where the version is the cause: the base classes lost the name, and the release that ran
    is past that (the paste shows it, or shows none and the name was there from the table's first
    release on), or among the releases that lacked it between two that have it (a name dropped and
    brought back). A name a base class gained says nothing of an older release's object: the subclasses
    declared it themselves before (a slow tokenizer's `sp_model`, a model config's `rope_scaling`)."""
    if not values.get("at_known") or not (values.get("at_removed") or values.get("at_gap")):
        return False
    if "at_installed" in values:
        return bool(values.get("at_too_new") or values.get("at_in_gap"))
    return not values.get("at_added") and bool(values.get("at_removed"))


# Where the stack index has no table of the tokenizer base classes: the attributes transformers-version-mismatch's
# own text names (transformers 5.0.0 removed `all_special_tokens_extended`, which vLLM up to 0.11 reads).
NAMED_BY_RULE = frozenset({"all_special_tokens_extended"})


def tokenizer_attr_versioned(messages, wordings, load) -> bool | None:
    """The fact `tokenizer_attr_versioned`: whether the first `<Tokenizer> has no attribute <name>` among the
    paste's messages names an attribute the stack index saw transformers' tokenizer base classes gain or lose
    (some indexed release has it, another lacks it); without the table, whether it is one the rule names. A name no
    release ever had (`TokenizersBackend has no attribute tokenizer`), or every release has, says nothing of the
    version. `wordings`: the patterns of transformers-version-mismatch that ask for the fact (their `cls` and `symbol`:
    the unquoted wording is the `__getattr__` of transformers' tokenizer base classes, which every tokenizer derives
    from). None where no message has that wording (the index is not loaded then). `load()` gives the index."""
    found = next((f for m in messages for rx in wordings if (f := rx.search(m))), None)
    if found is None:
        return None
    ix = load()
    if ix is None or not ix.attribute_releases() or not ix.attribute_roots("tokenizer"):
        return found.group("symbol") in NAMED_BY_RULE
    return bool(history(ix, "tokenizer", found.group("cls"), found.group("symbol"), {}).get("at_known"))
