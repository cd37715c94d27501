"""Team rule packs load on top of the shipped book: real folders, real YAML, the real shipped book."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from bot.diagnose import diagnose
from bot.diagnose.knowledge.rulebook.packs import describe, packs_of
from bot.diagnose.knowledge.rulebook import load_rulebook, local_packs

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE_PACK = ROOT / "deploy" / "rule-pack-example" / "rules"
NFS_RULE = """
    id: {id}
    level: root
    title: {{en: "{title}", zh: "{title}"}}
    match:
      patterns: ['Stale file handle']
    cause: {{en: the share went away, zh: 共享盘断开}}
    fix: {{en: remount it, zh: 重新挂载}}
"""
STALE = "OSError: [Errno 116] Stale file handle: '/mnt/models/llama/model-00001-of-00004.safetensors'\n"


def pack(path: Path, **rules: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, body in rules.items():
        (path / f"{name}.yaml").write_text(textwrap.dedent(body))
    return path


def test_a_pack_adds_rules_on_top_of_the_shipped_book(tmp_path):
    team = pack(tmp_path / "team", **{"nfs-stale": NFS_RULE.format(id="nfs-stale", title="NFS share went stale")})
    shipped = load_rulebook(use_cache=False, packs=[])
    book = load_rulebook(use_cache=False, packs=[str(team)])
    assert set(book.rules) == set(shipped.rules) | {"nfs-stale"}
    assert book.rules["nfs-stale"].pack == "team" and book.rules["cuda-oom"].pack == "shipped"
    assert [p.name for p in packs_of(book)] == ["shipped", "team"]
    assert book.version != shipped.version           # stored diagnoses say which packs answered them
    assert diagnose(STALE, book=book).best.rule_id == "nfs-stale"
    # the shipped book alone knows only the errno's meaning (a bare line is answered on the stack's terms)
    assert diagnose(STALE, book=shipped).best.rule_id == "stack-errno"


def test_a_pack_rule_with_a_shipped_id_replaces_it_and_a_later_pack_wins(tmp_path):
    first = pack(tmp_path / "first" / "rules",
                 **{"model-path-not-found": NFS_RULE.format(id="model-path-not-found", title="first")})
    second = pack(tmp_path / "second", **{"model-path-not-found": NFS_RULE.format(id="model-path-not-found",
                                                                                  title="second")})
    book = load_rulebook(use_cache=False, packs=[str(first), str(second)])
    rule = book.rules["model-path-not-found"]
    assert (rule.title["en"], rule.pack) == ("second", "second")
    assert book.replaced == {"model-path-not-found": "first"}
    assert packs_of(book)[1].name == "first"          # a folder called rules is named after its parent
    assert len(book) == len(load_rulebook(use_cache=False, packs=[]))


def test_the_environment_lists_packs_with_os_pathsep_and_the_command_line_adds_to_them(tmp_path, monkeypatch):
    a = pack(tmp_path / "a", **{"nfs-stale": NFS_RULE.format(id="nfs-stale", title="from a")})
    b = pack(tmp_path / "b", **{"nfs-stale": NFS_RULE.format(id="nfs-stale", title="from b")})
    monkeypatch.setenv("VLLM_DOCTOR_LOCAL_RULES", os.pathsep.join([str(a), str(b)]))
    assert local_packs() == [str(a), str(b)]
    assert load_rulebook(use_cache=False).rules["nfs-stale"].title["en"] == "from b"
    assert local_packs(["/x"])[-1] == "/x"
    # A book loaded from a folder of its own (a test's, an author's) takes no packs unless asked.
    own = load_rulebook(tmp_path / "a", use_cache=False)
    assert list(own.rules) == ["nfs-stale"] and own.rules["nfs-stale"].title["en"] == "from a"


def test_pack_metadata_names_it_and_its_fixtures(tmp_path):
    team = pack(tmp_path / "x")
    assert describe(str(team)) == ("x", str(tmp_path / "tests" / "fixtures" / "logs"))
    (team / "_pack.yaml").write_text("name: infra\nfixtures: ../cases\n")
    assert describe(str(team)) == ("infra", str(tmp_path / "cases"))
    (team / "_pack.yaml").write_text("name: infra\ncolour: red\n")
    book = load_rulebook(use_cache=False, packs=[str(team)])
    assert any("_pack.yaml: must be a mapping with only" in e for e in book.errors)


def test_what_does_not_load_is_named_with_its_pack(tmp_path):
    broken = pack(tmp_path / "broken", **{"bad-rule": "id: bad-rule\nlevel: fatal\n"})
    book = load_rulebook(use_cache=False, packs=[str(broken), str(tmp_path / "missing")])
    assert any(e.startswith(f"broken ({broken}): bad-rule.yaml: level") for e in book.errors), book.errors
    assert any("missing: not a folder" in e for e in book.errors)
    assert len(book) == len(load_rulebook(use_cache=False, packs=[]))


def test_the_documented_example_pack_loads_clean():
    book = load_rulebook(use_cache=False, packs=[str(EXAMPLE_PACK)])
    assert book.errors == []
    assert {r.id for r in book if r.pack == "acme-gpu"} == {"slurm-time-limit", "model-path-not-found"}
    assert book.replaced == {"model-path-not-found": "shipped"}
