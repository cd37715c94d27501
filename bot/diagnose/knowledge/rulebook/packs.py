"""Team rule packs: a team's own failures (its NFS model share, its scheduler, its images) as
rules loaded on top of the shipped book.

A pack is a folder of `<id>.yaml` files in the rule book's format (rules/README.md), named in
$VLLM_DOCTOR_LOCAL_RULES (folders joined by os.pathsep) or with `--rules DIR` on the command line.
Packs load in that order on top of the shipped book; a rule whose id is already loaded replaces
that rule. An optional `_pack.yaml` in the folder says:

    name: infra-team                   # shown by `rules list` and `rules stats`
    fixtures: ../tests/fixtures/logs   # the pack's fixtures, relative to the pack

By default a pack is named after its folder (after the folder above it when the folder is called
`rules`), and its fixtures are `tests/fixtures/logs/<rule-id>/*.log` beside the pack, the way the
shipped book keeps them.
"""

from __future__ import annotations

import os

from bot.base.record import Record

from .book import SHIPPED, RuleBook, RuleError, default_directory, load_folder

META_FILE = "_pack.yaml"
META_KEYS = {"name", "fixtures"}


class Pack(Record):
    name: str
    directory: str
    fixtures: str                      # the folder of its fixtures (may not exist)
    version: str
    rule_ids: list


def fixtures_beside(directory: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(directory)), "tests", "fixtures", "logs")


def describe(directory: str) -> tuple[str, str]:
    """A pack's name and fixture folder, from its `_pack.yaml` or from where it is."""
    directory = os.path.abspath(directory)
    folder = os.path.basename(directory)
    name = os.path.basename(os.path.dirname(directory)) if folder == "rules" else folder
    fixtures = fixtures_beside(directory)
    meta_path = os.path.join(directory, META_FILE)
    if os.path.isfile(meta_path):
        import yaml
        with open(meta_path, "rb") as f:
            try:
                meta = yaml.safe_load(f) or {}
            except yaml.YAMLError as e:
                raise RuleError(f"{meta_path}: not valid YAML: {e}") from None
        if not isinstance(meta, dict) or set(meta) - META_KEYS:
            raise RuleError(f"{meta_path}: must be a mapping with only {sorted(META_KEYS)}")
        name = str(meta.get("name") or name)
        if meta.get("fixtures"):
            fixtures = os.path.normpath(os.path.join(directory, str(meta["fixtures"])))
    return name, fixtures


def shipped_pack(book: RuleBook) -> Pack:
    return Pack(SHIPPED, book.directory, fixtures_beside(book.directory), book.version, list(book.rules))


def stack(book: RuleBook, directories, *, use_cache: bool = True) -> RuleBook:
    """`book` with the packs in `directories` loaded on top, in order."""
    rules, errors, replaced = dict(book.rules), list(book.errors), {}
    packs = [shipped_pack(book)]
    for directory in directories:
        if not os.path.isdir(directory):
            errors.append(f"rule pack {directory}: not a folder")
            continue
        try:
            name, fixtures = describe(directory)
        except RuleError as e:
            errors.append(str(e))
            continue
        pack_rules, version, pack_errors = load_folder(directory, use_cache=use_cache)
        errors += [f"{name} ({directory}): {e}" for e in pack_errors]
        for rule_id, rule in pack_rules.items():
            rule.pack = name
            if rule_id in rules:
                replaced[rule_id] = rules[rule_id].pack
            rules[rule_id] = rule
        packs.append(Pack(name, os.path.abspath(directory), fixtures, version, list(pack_rules)))
    # Every diagnosis is stored with the book's version: it must change when any pack does.
    import hashlib          # here: a book without packs (most CLI calls) never pays for it
    version = hashlib.sha1(";".join(f"{p.name}:{p.version}" for p in packs).encode()).hexdigest()[:12]
    return RuleBook(rules, version, errors, book.directory, packs, replaced)


def packs_of(book: RuleBook) -> list[Pack]:
    """The packs a book was stacked from; a book without packs is the shipped one alone."""
    return book.packs or [shipped_pack(book)]


LOCAL_RULES_ENV = "VLLM_DOCTOR_LOCAL_RULES"


def local_packs(extra=(), env=None) -> list[str]:
    """Team rule packs: $VLLM_DOCTOR_LOCAL_RULES (folders joined by os.pathsep), then `extra`
    (--rules DIR on the command line); a later pack wins over an earlier one."""
    env = os.environ if env is None else env
    return [p for p in env.get(LOCAL_RULES_ENV, "").split(os.pathsep) if p.strip()] + [str(p) for p in extra]


def load_rulebook(directory=None, *, packs=None, use_cache: bool = True) -> RuleBook:
    """The rule book in `directory` (default: the shipped one, or $VLLM_DOCTOR_RULES's), with the
    rule packs in `packs` on top (default: $VLLM_DOCTOR_LOCAL_RULES's, for the default book)."""
    base = str(directory or default_directory())
    if packs is None:
        packs = local_packs() if directory is None else []
    rules, version, errors = load_folder(base, use_cache=use_cache)
    if not packs:
        return RuleBook(rules, version, errors, base)
    return stack(RuleBook(rules, version, errors, base), packs, use_cache=use_cache)
