"""The build's parts on small inputs written here (no network, no wheel): the header and module
parsers, the symbolic evaluation of cache paths, the merge whose output the index's matcher reads,
and the data folder written and read back. (Reading PyPI: tests/watch.)"""

from __future__ import annotations

import ast

from bot.diagnose.knowledge.stack import stack_index as stack
from bot.diagnose.knowledge.stack.build import (abi, caches, cuda_codes, extract_sites, nccl_codes, nvml_codes,
                                                os_tables, pins, scan_env_reads, stack_sites, tables)
from bot.diagnose.knowledge.stack.build.packages import requirements


def test_header_enums():
    header = """
    enum __device_builtin__ cudaError
    {
        /** Fine. */
        cudaSuccess = 0,
        /** Said to be old.
         * \\deprecated */
        cudaErrorOld = 7,
        /** Something else. */
        cudaErrorSomething      =    999
    };
    typedef enum { ncclSuccess = 0, ncclSystemError = 2, ncclNumResults = 3 } ncclResult_t;
    """
    items = cuda_codes.enum_items(header, "cudaError")
    assert [(i["name"], i["number"], i["deprecated"]) for i in items] == [
        ("cudaSuccess", 0, False), ("cudaErrorOld", 7, True), ("cudaErrorSomething", 999, False)]
    assert nccl_codes.enum_items(header) == [("ncclSuccess", 0), ("ncclSystemError", 2)]


def test_pynvml_codes():
    source = """
NVML_SUCCESS = 0
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_GPU_IS_LOST = 15
class NVMLError(Exception):
    _errcode_to_string = {NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded"}
"""
    assert nvml_codes.scan(source) == [[9, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded", "NVMLError_DriverNotLoaded"],
                                       [15, "NVML_ERROR_GPU_IS_LOST", None, "NVMLError_GpuIsLost"]]


def test_gcc_labels_from_the_manual():
    text = "versions GCC 4.3.0: GLIBCXX_3.4.10, CXXABI_1.3.2GCC 4.4.0: GLIBCXX_3.4.11, CXXABI_1.3.3" \
           "GCC 4.4.1: GLIBCXX_3.4.12, CXXABI_1.3.3 and so on"
    first = abi.introduced(abi.labels_by_release(text))
    assert first == {"GLIBCXX_3.4.10": "4.3.0", "CXXABI_1.3.2": "4.3.0", "GLIBCXX_3.4.11": "4.4.0",
                     "CXXABI_1.3.3": "4.4.0", "GLIBCXX_3.4.12": "4.4.1"}


def test_cache_paths_are_evaluated_symbolically():
    module = """
import os
home = os.path.join(os.path.expanduser("~"), ".cache")
TOOL_HOME = os.path.expanduser(os.getenv("TOOL_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", home), "tool")))
TOOL_CACHE = os.getenv("TOOL_CACHE", os.path.join(TOOL_HOME, "hub"))
ODD = some_function()
"""
    paths = caches.module_paths(module)
    assert paths["TOOL_CACHE"] == "${TOOL_CACHE:-${TOOL_HOME:-${XDG_CACHE_HOME:-~/.cache}/tool}/hub}"
    assert caches.resolve(paths["TOOL_CACHE"]) == "~/.cache/tool/hub"
    assert caches.variables(paths["TOOL_CACHE"]) == ["TOOL_CACHE", "TOOL_HOME", "XDG_CACHE_HOME"]
    assert "ODD" not in paths


def test_env_reads_and_literal_tables():
    tree = ast.parse("""
import os
A = os.environ.get("TOOL_A", "1")
B = os.getenv("TOOL_B")
if "TOOL_C" in os.environ: pass
D = os.environ["TOOL_D"]
E = env_str("TOOL_E", lambda: "x")
lower = os.getenv("not_a_variable")
MAPPING = OrderedDict([("llama", "LlamaConfig"), ("qwen3", "Qwen3Config")])
ARCHS = {"general": {}, "llama": {}}
""")
    reads = scan_env_reads.scan(tree)
    assert [r["name"] for r in reads] == ["TOOL_A", "TOOL_B", "TOOL_C", "TOOL_D", "TOOL_E"]
    assert reads[0]["default"] == "'1'"
    assert scan_env_reads.literal_keys(tree, "MAPPING") == ["llama", "qwen3"]
    assert scan_env_reads.literal_keys(tree, "ARCHS") == ["general", "llama"]
    assert scan_env_reads.literal_keys(tree, "MISSING") is None


class _Wheel:
    """A wheel's members as stack_sites reads them (namelist, texts)."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def namelist(self):
        return list(self.files)

    def texts(self, names):
        return {n: self.files[n] for n in names}


def test_gguf_architectures_are_read_from_both_tables_wherever_they_are():
    # transformers 5.17+: the mapping in ggml.py, the configs built by a function in gguf/
    wheel = _Wheel({"transformers/integrations/ggml.py": 'GGUF_CONFIG_MAPPING = {"general": {}, "llama": {}}',
                    "transformers/integrations/gguf/gguf_config_mapping.py": "GGUF_CONFIG_ARCHS = {'qwen35': f}"})
    assert stack_sites._table(wheel, *stack_sites.GGUF_ARCHS) == ["general", "llama", "qwen35"]
    older = _Wheel({"transformers/integrations/ggml.py": 'GGUF_CONFIG_MAPPING = {"llama": {}}'})
    assert stack_sites._table(older, *stack_sites.GGUF_ARCHS) == ["llama"]
    assert stack_sites._table(_Wheel({"transformers/integrations/ggml.py": "X = 1"}), *stack_sites.GGUF_ARCHS) is None


def test_pins_and_metadata():
    metadata = ("Name: torch\nVersion: 2.8.0\nRequires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == "
                "\"Linux\"\nRequires-Dist: triton==3.4.0; platform_system == \"Linux\"\n"
                "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n")
    reqs = requirements(metadata)
    assert [(r["name"], r["specifier"], r["extra"]) for r in reqs] == [
        ("nvidia-cuda-runtime-cu12", "==12.8.90", None), ("triton", "==3.4.0", None), ("opt-einsum", ">=3.3", "opt-einsum")]
    assert pins.cuda_of([["cuda-toolkit", "==13.0.2", None, None]]) == ("13.0", "cuda-toolkit==13.0.2")
    assert pins.cuda_of([["nvidia-cuda-runtime-cu12", "==12.8.90", None, None]])[0] == "12.8"


def test_os_tables_come_from_cpython():
    rows = {r[1]: r for r in os_tables.errno_table()}
    assert rows["ENOSPC"][3] == "OSError" and rows["EACCES"][3] == "PermissionError"
    assert any(r[1] == "SIGKILL" and r[0] == 9 for r in os_tables.signal_table())
    for name, rx, _words, _meaning in os_tables.LOADER_SHAPES:
        assert "(?P<" in rx, name


def test_merged_sites_are_matched_by_the_index(tmp_path):
    source = {"tool/errors.py": '''
class ToolError(Exception):
    pass

def fetch(repo_id, revision):
    if not repo_id:
        raise ToolError(f"Repository {repo_id} was not found on the server: check its name")
    raise ValueError("Revision %s is not a valid revision of this repository" % revision)
'''}
    per_release = [("1.0.0", extract_sites.extract(source)), ("1.1.0", extract_sites.extract(source))]
    block = stack_sites.merge("torch", per_release)
    blocks = {"sites:torch": {k: v for k, v in block.items() if k not in ("places", "envs", "classes")},
              "places:torch": block["places"], "meta": {"format": tables.FORMAT}}
    tables.write(blocks, tmp_path)
    ix = stack.load(tmp_path)
    [m] = ix.match("torch", "tool.errors.ToolError: Repository org/model was not found on the server: check its name")
    assert m.site.exc == "ToolError" and m.captures == {"repo_id": "org/model"}
    assert m.site.releases == ["1.0.0", "1.1.0"]
    assert m.site.latest_where()["function"] == "fetch"


def test_the_shipped_data_read_back_and_written_again_is_the_same_bytes(tmp_path):
    """What `index update` does to a copy: read every block, add to some, write them all."""
    blocks = tables.read(stack.DATA_DIR)
    assert tables.meta(blocks) == blocks["meta"]
    tables.write(blocks, tmp_path)
    for shipped in stack.DATA_DIR.glob("*.json.gz"):
        assert (tmp_path / shipped.name).read_bytes() == shipped.read_bytes(), shipped.name


def test_new_vllm_and_torch_releases_go_in_order():
    block = {"releases": {"0.9.2": [], "0.10.0": []}, "source": "s"}
    pins.add_vllm_releases(block, {"0.10.1": "Name: vllm\nRequires-Dist: torch==2.8.0\nRequires-Dist: regex\n"})
    assert list(block["releases"]) == ["0.9.2", "0.10.0", "0.10.1"]
    assert block["releases"]["0.10.1"] == [["torch", "==2.8.0", None, None]]          # only the watched packages
    assert pins.exact_pins(block, "torch") == {"2.8.0"}
    torch = {"releases": {"2.10.0": {}}, "source": "s"}
    pins.add_torch_releases(torch, {"2.9.0": {"cuda": "12.8"}})
    assert list(torch["releases"]) == ["2.9.0", "2.10.0"]


_CHAIN = '''
def pick(kind):
    if kind == "a":
        return 1
    elif kind == "b":
        return 2
    else:
        raise ValueError(f"Unknown kind {kind}: expected one of the supported kinds here")
'''


def _chain_path(package):
    part = stack_sites.PACKAGES[package]["parts"][0]
    return part + "chain.py" if part.endswith("/") else part


class _Releases:
    """Packages as rescan_sites reads them: one wheel per release, holding _CHAIN in a part each
    package's scan reads; `missing`: releases without a wheel."""

    def __init__(self, missing=()):
        self.missing, self.asked = set(missing), []

    def wheel(self, name, version, prefer=None, smallest=False):
        self.asked.append((name, version))
        return None if version in self.missing else {"filename": f"{name}-{version}.whl", "project": name}

    def remote(self, wheel):
        package = next(p for p, s in stack_sites.PACKAGES.items() if s["project"] == wheel["project"])
        return _Wheel({_chain_path(package): _CHAIN})

    def memo(self, kind, key, make, compress=False):
        return make()

    def prune(self, prefix, current):
        pass


def _shipped_with_old_conditions(tmp_path):
    """The shipped data with each package's sites made from _CHAIN in releases 1.0 and 1.1, and the
    condition worded as the scanner before the fix did (only the chain's last test negated)."""
    blocks = tables.read(stack.DATA_DIR)
    for package in stack_sites.PACKAGES:
        block = stack_sites.build_package(_Releases(), package, log=lambda *a: None, releases=["1.0", "1.1"])
        for place in block["places"][0]:
            place[2] = "not (kind == 'b')"
        blocks.update(tables._split(package, block))
    blocks["meta"] = tables.meta(blocks)
    tables.write(blocks, tmp_path)
    return {p.name: p.read_bytes() for p in tmp_path.glob("*.json.gz")}


def test_a_rescan_of_the_sites_words_their_conditions_again_and_keeps_every_other_table(tmp_path):
    before = _shipped_with_old_conditions(tmp_path)
    pypi = _Releases()
    blocks = tables.rescan_sites(pypi, tmp_path, log=lambda *a: None)
    tables.write(blocks, tmp_path)
    # the releases the folder names, not PyPI's newest
    assert sorted({v for _, v in pypi.asked}) == ["1.0", "1.1"]
    assert {n for n, _ in pypi.asked} == {s["project"] for s in stack_sites.PACKAGES.values()}
    changed = sorted(n for n, data in before.items() if (tmp_path / n).read_bytes() != data)
    assert changed == sorted(f"places.{p}.json.gz" for p in stack_sites.PACKAGES)
    ix = stack.load(tmp_path)
    [m] = ix.match("torch", "ValueError: Unknown kind c: expected one of the supported kinds here")
    assert [w["condition"] for w in m.site.where] == ["kind not in ('a', 'b')"] * 2
    assert m.site.where[-1]["file"].startswith("torch/cuda/")


def test_a_rescan_stops_when_a_release_the_index_names_has_no_wheel(tmp_path):
    _shipped_with_old_conditions(tmp_path)
    try:
        tables.rescan_sites(_Releases(missing={"1.1"}), tmp_path, log=lambda *a: None)
    except tables.Unreadable as e:
        assert "1.1" in str(e)
    else:
        raise AssertionError("a release without a wheel was left out")
