import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from bot.base.versions import in_range, valid_specifier

CASES = [("0.11.0", ">=0.8.5"), ("0.8", ">=0.8.0"), ("0.8.4", ">=0.8.5"), ("0.6.3", ">=0.5,<0.11"),
         ("0.11.0", ">=0.5,<0.11"), ("0.10.1.dev0+g6d8d0a24c.d20250902", ">=0.10"), ("0.33.0rc1", "<0.33"),
         ("1.0", "!=1.0.0"), ("0.9.2", "~=0.9.0"), ("0.9.2", "==0.9.*"), ("0.10.2", ">0.10"),
         # prefix clauses of plain versions, answered without packaging (transformers pins of vLLM 0.17+)
         ("5", "!=5.0.*,>=4.56.0"), ("5.0.3", "!=5.0.*,>=4.56.0"), ("5.1.0", "!=5.0.*,!=5.1.*,>=4.56.0"),
         ("5.6.0", "!=5.0.*,!=5.5.0,>=4.56.0"), ("4.5", "==4.5.*"), ("4.50", "==4.5.*"), ("4", "!=4.0.*"),
         ("4.5.1.3", "!=4.5.1.*"), ("5.0.0rc1", "!=5.0.*")]


@pytest.mark.parametrize("version, spec", CASES)
def test_same_answer_as_packaging(version, spec):
    assert in_range(version, spec) == (Version(version) in SpecifierSet(spec, prereleases=True))


def test_bad_input():
    assert not in_range(None, ">=0.5") and not in_range("banana", ">=0.5")
    assert valid_specifier(">=0.5,<0.11") and valid_specifier("~=0.9.0") and not valid_specifier("latest")
    assert valid_specifier("!=5.0.*,>=4.56.0") and not valid_specifier(">=4.5.*")
