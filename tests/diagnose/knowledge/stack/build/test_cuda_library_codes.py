"""The math libraries' status enums read from their headers, and the rows the build makes of them
(no network: a stand-in for PyPI hands the build its wheels)."""

from __future__ import annotations

import pytest

from bot.diagnose.knowledge.stack.build import cuda_library_codes as codes

# the shapes NVIDIA's headers write their status enums in (abridged)
CUBLAS = """
typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0 } cublasFillMode_t;
"""
CUDNN9 = """
typedef enum {
    CUDNN_STATUS_SUCCESS = 0, /**< Operation completed successfully. @since cuDNN 9.0.0 */

    /* Uncategorized errors */
    CUDNN_STATUS_NOT_INITIALIZED                = 1001, /**< cuDNN library not initialized. @since cuDNN 9.0.0 */
    CUDNN_STATUS_BAD_PARAM                     = 2000, /**< Invalid parameter value. @since cuDNN 9.0.0 */
    CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED  = 4006, /**< Texture creation failed. @since cuDNN 9.0.0 */
    CUDNN_STATUS_EXECUTION_FAILED             = 5000, /**< Execution failed. @since cuDNN 9.0.0 */
    CUDNN_STATUS_INVALID_VALUE CUDNN_DEPRECATED_ENUM = 2001 /* please transition to CUDNN_STATUS_BAD_PARAM instead */, /**< @deprecated Use CUDNN_STATUS_BAD_PARAM. @since cuDNN 9.0.0 */
    CUDNN_STATUS_MAPPING_ERROR CUDNN_DEPRECATED_ENUM = CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED, /**< @deprecated Use CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED. @since cuDNN 9.0.0 */
} cudnnStatus_t;
"""
CUDNN8 = """
typedef enum {
    CUDNN_STATUS_SUCCESS                      = 0,
    CUDNN_STATUS_NOT_INITIALIZED              = 1,
    CUDNN_STATUS_MAPPING_ERROR                = 7,
    CUDNN_STATUS_EXECUTION_FAILED             = 8,
} cudnnStatus_t;
"""
CURAND = """
enum curandStatus {
    CURAND_STATUS_SUCCESS = 0, ///< No errors
    CURAND_STATUS_VERSION_MISMATCH = 100, ///< Header file and linked library version do not match
};
typedef enum curandStatus curandStatus_t;
"""
CUFFT = """
typedef enum cufftResult_t {
  CUFFT_SUCCESS        = 0x0,
  CUFFT_INTERNAL_ERROR = 0x5,
  CUFFT_LICENSE_ERROR = 0x0F,
} cufftResult;
"""


def test_a_plain_enum_gives_names_and_numbers():
    items = codes.enum_items(CUBLAS, "cublasStatus_t")
    assert [(i["name"], i["number"]) for i in items] == [
        ("CUBLAS_STATUS_SUCCESS", 0), ("CUBLAS_STATUS_NOT_INITIALIZED", 1), ("CUBLAS_STATUS_EXECUTION_FAILED", 13),
        ("CUBLAS_STATUS_NOT_SUPPORTED", 15)]
    assert all(i["text"] is None and not i["deprecated"] for i in items)
    assert codes.enum_items(CUBLAS, "cudnnStatus_t") == []


def test_doc_comments_aliases_and_deprecation():
    items = {i["name"]: i for i in codes.enum_items(CUDNN9, "cudnnStatus_t")}
    assert items["CUDNN_STATUS_NOT_INITIALIZED"] == {"name": "CUDNN_STATUS_NOT_INITIALIZED", "number": 1001,
                                                     "text": "cuDNN library not initialized", "deprecated": False}
    # an alias takes its target's number and, with no text of its own, its target's text
    assert items["CUDNN_STATUS_MAPPING_ERROR"]["number"] == 4006
    assert items["CUDNN_STATUS_MAPPING_ERROR"]["text"] == "Texture creation failed"
    assert items["CUDNN_STATUS_MAPPING_ERROR"]["deprecated"]
    # a plain comment is not a text; the deprecation macro marks it
    assert items["CUDNN_STATUS_INVALID_VALUE"]["number"] == 2001
    assert items["CUDNN_STATUS_INVALID_VALUE"]["text"] is None and items["CUDNN_STATUS_INVALID_VALUE"]["deprecated"]


def test_a_tagged_enum_line_comments_and_hex_numbers():
    assert codes.enum_items(CURAND, "curandStatus")[1] == {
        "name": "CURAND_STATUS_VERSION_MISMATCH", "number": 100,
        "text": "Header file and linked library version do not match", "deprecated": False}
    assert [(i["name"], i["number"]) for i in codes.enum_items(CUFFT, "cufftResult")] == [
        ("CUFFT_SUCCESS", 0), ("CUFFT_INTERNAL_ERROR", 5), ("CUFFT_LICENSE_ERROR", 15)]


class _Zip:
    def __init__(self, members: dict[str, str]):
        self.members = members

    def namelist(self):
        return list(self.members)

    def texts(self, names):
        return {n: self.members[n] for n in names}


class FakePyPI:
    """The projects of LIBRARIES, each with the releases and header given; cuBLAS's library texts
    come from memo (as a cache that already holds them)."""

    HEADERS = {"nvidia-cublas-cu12": ("cublas", "cublas_api.h", CUBLAS),
               "nvidia-cudnn-cu12": ("cudnn", None, None), "nvidia-cufft-cu12": ("cufft", "cufft.h", CUFFT)}

    def releases(self, name, since=None, until=None):
        return {"nvidia-cublas-cu12": ["12.8.4.1", "12.9.1.4"], "nvidia-cudnn-cu12": ["8.9.7.29", "9.10.2.21"],
                "nvidia-cufft-cu12": ["11.3.3.83"]}.get(name, [])

    def wheel(self, name, version, prefer=("manylinux", "x86_64"), smallest=False):
        return {"filename": f"{name}-{version}.whl", "name": name, "version": version}

    def remote(self, wheel):
        name, version = wheel["name"], wheel["version"]
        folder = f"nvidia/{name.split('-')[1]}/include"
        if name == "nvidia-cudnn-cu12":
            return _Zip({f"{folder}/cudnn_ops_infer.h": CUDNN8} if version.startswith("8.")
                        else {f"{folder}/cudnn_graph.h": CUDNN9})
        _, header, text = self.HEADERS[name]
        return _Zip({f"{folder}/{header}": text})

    def memo(self, kind, key, make, compress=False):
        if kind == "cublas-texts":
            return {"texts": {"1": "the library was not initialized", "13": "the function failed to launch on the GPU"},
                    "from": "nvidia-cublas-cu12==12.9.1.4 (libcublas, cublasGetStatusString)"}
        return make()


@pytest.fixture(scope="module")
def built():
    return codes.build(FakePyPI())


def test_the_build_keeps_each_librarys_newest_release_and_cublas_texts(built):
    cublas = {row[0]: row for row in built["libraries"]["cublas"]["codes"]}
    assert cublas["CUBLAS_STATUS_EXECUTION_FAILED"] == [
        "CUBLAS_STATUS_EXECUTION_FAILED", "the function failed to launch on the GPU", False, [["12.9", 13]]]
    assert cublas["CUBLAS_STATUS_NOT_SUPPORTED"][1] is None         # the library said nothing of it
    assert built["libraries"]["cublas"]["label"] == "cuBLAS"
    assert "nvidia-cublas-cu12==12.9.1.4 (nvidia/cublas/include/cublas_api.h)" in built["source"]
    assert set(built["libraries"]) == {"cublas", "cudnn", "cufft"}      # projects without releases are left out


def test_cudnn_keeps_the_numbers_of_both_majors_and_the_newest_text(built):
    cudnn = {row[0]: row for row in built["libraries"]["cudnn"]["codes"]}
    assert cudnn["CUDNN_STATUS_EXECUTION_FAILED"] == [
        "CUDNN_STATUS_EXECUTION_FAILED", "Execution failed", False, [["8.9", 8], ["9.10", 5000]]]
    assert cudnn["CUDNN_STATUS_MAPPING_ERROR"][3] == [["8.9", 7], ["9.10", 4006]]
    assert built["libraries"]["cudnn"]["source"] == [
        "nvidia-cudnn-cu12==8.9.7.29 (nvidia/cudnn/include/cudnn_ops_infer.h)",
        "nvidia-cudnn-cu12==9.10.2.21 (nvidia/cudnn/include/cudnn_graph.h)"]
