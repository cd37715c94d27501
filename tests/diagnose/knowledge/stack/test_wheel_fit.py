"""Why no wheel of a vLLM release fits a machine, pip's checks in pip's order, from the shipped table."""

import pytest

from bot.diagnose.knowledge.stack import stack_index, wheel_fit
from bot.diagnose.knowledge.stack.wheel_fit import Host

IX = stack_index.load()
pytestmark = pytest.mark.skipif(IX is None, reason="the stack index's data is not installed")


def why(version, **host):
    m = wheel_fit.misfit(IX.wheel_release(version), Host(**host))
    return (m.kind, m.host_value, m.needs) if m else None


def test_each_reason_pip_has():
    assert why("0.1.2") == ("none", "", "")
    assert why("0.9.2", python="3.13.0") == ("python", "3.13", "<3.13,>=3.9")
    assert why("0.6.3", os="windows") == ("os", "Windows", "")
    assert why("0.9.0", os="linux", arch="aarch64") == ("arch", "Linux aarch64", "")
    assert why("0.5.1", python="3.12", os="linux", arch="x86_64") == ("abi", "3.12", "")      # cp38..cp311 wheels
    assert why("0.12.0", os="linux", arch="x86_64", glibc="2.28") == ("glibc", "2.28", "2.31")


def test_what_the_paste_does_not_show_is_not_checked():
    assert why("0.6.3") is None                             # nothing known of the machine
    assert why("0.12.0", glibc="2.28") is None              # a glibc without the OS and CPU it is of
    assert why("0.6.3", python="3.12") is None              # cp38-abi3: any CPython from 3.8
    assert why("0.10.2", os="linux", arch="aarch64") is None


def test_newest_fit_and_words():
    releases = IX.wheel_releases()
    assert wheel_fit.newest_fit(releases, Host(os="macos")) is None
    assert wheel_fit.newest_fit(releases, Host(python="3.8")).version == "0.6.3.post1"
    r = IX.wheel_release("0.5.1")
    assert wheel_fit.platforms(r) == "Linux x86_64"
    assert wheel_fit.pythons(r) == "CPython 3.8, 3.9, 3.10, 3.11"
    assert wheel_fit.pythons(IX.wheel_release("0.6.3")) == "CPython ≥ 3.8"
    assert wheel_fit.python_range("<3.13,>=3.9") == "3.9 – 3.12"
    assert wheel_fit.ordered_spec("<3.13,>=3.9") == ">=3.9,<3.13"
    assert wheel_fit.platform_arch("win_amd64") == "x86_64" and wheel_fit.platform_arch("macosx_11_0_arm64") == "aarch64"


def test_the_glibc_a_packages_linux_wheels_need_above_the_machines():
    host = wheel_fit.Host(arch="x86_64", glibc="2.31")
    assert wheel_fit.glibc_misfit(["manylinux_2_34_x86_64"], host) == "2.34"
    assert wheel_fit.glibc_misfit(["manylinux_2_34_x86_64", "manylinux2014_x86_64"], host) is None
    assert wheel_fit.glibc_misfit(["manylinux_2_34_aarch64"], host) is None       # another CPU's: not this question
    assert wheel_fit.glibc_misfit(["manylinux_2_34_x86_64"], wheel_fit.Host(arch="x86_64")) is None
