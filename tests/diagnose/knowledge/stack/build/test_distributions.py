"""The table of import names: a wheel's top-level names, its platforms, and a build over a fake PyPI."""

from bot.diagnose.knowledge.stack import stack_index
from bot.diagnose.knowledge.stack.build import distributions as dist


def test_import_names_are_top_level_packages_modules_and_namespace_subpackages():
    members = ["cv2/__init__.py", "cv2/data/haar.xml", "opencv_python_headless-4.13.0.dist-info/RECORD",
               "six.py", "_cffi_backend.cpython-311-x86_64-linux-gnu.so", "tests/test_x.py",
               "google/protobuf/__init__.py", "google/protobuf/message.py",
               "nvidia/nccl/lib/libnccl.so.2", "nvidia/__init__.py", "zmq/backend/__init__.py",
               "zmq/__init__.py", "opencv_python_headless.libs/libz.so"]
    assert dist.import_names(members) == ["_cffi_backend", "cv2", "google.protobuf", "nvidia.nccl", "six", "zmq"]


def test_platforms_of_wheel_tags_and_archives():
    assert dist.platform_of("manylinux_2_28_aarch64") == ["linux_aarch64"]
    assert dist.platform_of("manylinux1_x86_64.manylinux_2_5_x86_64") == ["linux_x86_64", "linux_x86_64"]
    assert dist.platform_of("macosx_11_0_universal2") == ["macos_arm64", "macos_x86_64"]
    assert dist.platform_of("win_amd64") == ["windows_x86_64"]
    assert dist.platform_of("any") == ["any"]
    files = [{"filename": "triton-3.0.0-1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"},
             {"filename": "triton-3.5.0-cp311-cp311-manylinux_2_27_aarch64.whl"},
             {"filename": "triton-3.5.0-cp311-cp311-manylinux_2_27_x86_64.whl"},
             {"filename": "flashinfer_python-0.2.11.tar.gz"},
             {"filename": "triton-3.6.0-cp311-cp311-manylinux_2_27_x86_64.whl", "yanked": True}]
    assert dist.platforms(files) == {"3.0.0": ["linux_x86_64"], "3.5.0": ["linux_aarch64", "linux_x86_64"],
                                     "0.2.11": ["sdist"]}


def test_exact_pins_only():
    assert dist.exact("==0.0.27.post2") == "0.0.27.post2"
    assert dist.exact(">=2.43.0") is None and dist.exact("==2.*") is None and dist.exact("") is None


class FakePyPI:
    """What the build reads: release lists, files, METADATA, a wheel's members."""

    META = {"vllm": {"0.6.0": "Requires-Dist: torch==2.4.0\nRequires-Dist: pyzmq\n"
                              "Requires-Dist: ray>=2.9; extra == \"ray\"\n"
                              "Requires-Dist: xformers==0.0.27.post2; platform_machine == \"x86_64\"\n"},
            "torch": {"2.4.0": "Requires-Dist: triton==3.0.0; platform_machine == \"x86_64\"\nRequires-Dist: sympy\n"}}
    MEMBERS = {"torch": ["torch/__init__.py", "torchgen/__init__.py", "functorch/__init__.py"],
               "pyzmq": ["zmq/__init__.py"], "ray": ["ray/__init__.py"], "xformers": ["xformers/__init__.py"],
               "triton": ["triton/__init__.py"], "sympy": ["sympy/__init__.py", "isympy.py"]}
    RELEASES = {"vllm": ["0.6.0"], "torch": ["2.4.0"], "pyzmq": ["27.0.0"], "ray": ["2.40.0"],
                "xformers": ["0.0.27.post2"], "triton": ["3.0.0"], "sympy": ["1.13.0"]}

    def releases(self, name, since=None, until=None):
        return self.RELEASES[name]

    def project(self, name):
        return {"files": [{"filename": f"{name}-{v}-cp311-cp311-manylinux_2_17_x86_64.whl"} for v in self.RELEASES[name]]}

    def wheel(self, name, version, prefer=(), smallest=False):
        return {"filename": f"{name}-{version}.whl", "name": name, "version": version}

    def metadata(self, wheel):
        return self.META.get(wheel["name"], {}).get(wheel["version"], "")

    def remote(self, wheel):
        members = self.MEMBERS[wheel["name"]]
        return type("W", (), {"namelist": lambda _self: members})()

    def memo(self, kind, key, make, compress=False):
        return make()


def test_build_keeps_every_requirement_the_import_names_and_what_an_exact_pin_pins():
    block = dist.build(FakePyPI(), log=lambda *_: None)
    assert block["imports"]["zmq"] == ["pyzmq"] and block["imports"]["torchgen"] == ["torch"]
    assert block["imports"]["triton"] == ["triton"] and block["imports"]["isympy"] == ["sympy"]
    rows = [block["rows"][i] for i in block["requires"]["0.6.0"]]
    assert ["ray", ">=2.9", 'extra == "ray"', "ray"] in rows
    assert ["xformers", "==0.0.27.post2", 'platform_machine == "x86_64"', None] in rows
    assert block["through"]["triton"] == {"torch": {"2.4.0": ["==3.0.0", 'platform_machine == "x86_64"']}}
    assert block["via"]["sympy"] == ["torch"] and block["wheels"]["triton"] == {"3.0.0": ["linux_x86_64"]}


def test_the_shipped_table():
    ix = stack_index.load()
    assert ix.distributions_of("cv2") == ("cv2", ["opencv-python", "opencv-python-headless"])
    assert ix.distributions_of("google.protobuf.message") == ("google.protobuf", ["protobuf"])
    assert ix.distributions_of("my_own_helpers") is None
    assert [p.specifier for p in ix.requirements_of("0.6.3", "xformers")] == ["==0.0.27.post2"]
    parent, version, pin = ix.required_through("0.6.3", "triton")
    assert (parent, version, pin.specifier) == ("torch", "2.4.0", "==3.0.0") and "x86_64" in pin.marker
    assert ix.wheel_platforms("triton", "3.0.0") == ("3.0.0", ["linux_x86_64"])
    assert "modules" in ix.sources
