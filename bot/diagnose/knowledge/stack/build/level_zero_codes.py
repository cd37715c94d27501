"""Intel GPUs' Level Zero result codes (`ze_result_t`): number, ZE_RESULT_* name and meaning.

The numbers and names from pyzes, the Level Zero (Sysman) Python bindings on PyPI, whose module
repeats the `ze_result_t` enum of the loader's public header `ze_api.h` as constants: read with `ast`,
never imported (it loads libze_loader). No wheel carries the header itself, and its one-line doc
comments are what a user needs ("device hung, reset, was removed, or driver update occurred"):
MEANING holds them by hand, from ze_api.h of oneapi-src/level-zero (v1.12-r1.12.11, MIT), with the
header's tag ([Core], [Sysman], [Validation]) left out. A code newer than that header has no meaning
here; its answer words its name.

oneCCL, torch's XCCL backend and Intel's runtimes print a failed call's code by name
("ze error at zeMemOpenIpcHandle, code: ZE_RESULT_ERROR_INVALID_ARGUMENT"), never by number.
"""

from __future__ import annotations

from .module_constants import int_constants
from .packages import Packages

PROJECT = "pyzes"
MODULE = "pyzes/__init__.py"
HEADER_SOURCE = "https://github.com/oneapi-src/level-zero/blob/master/include/ze_api.h (ze_result_t, v1.12-r1.12.11), by hand"

MEANING = {
    "ZE_RESULT_SUCCESS": "success",
    "ZE_RESULT_NOT_READY": "synchronization primitive not signaled",
    "ZE_RESULT_ERROR_DEVICE_LOST": "device hung, reset, was removed, or driver update occurred",
    "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY": "insufficient host memory to satisfy call",
    "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY": "insufficient device memory to satisfy call",
    "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE": "error occurred when building module, see build log for details",
    "ZE_RESULT_ERROR_MODULE_LINK_FAILURE": "error occurred when linking modules, see build log for details",
    "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET": "device requires a reset",
    "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE": "device currently in low power state",
    "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS": "access denied due to permission level",
    "ZE_RESULT_ERROR_NOT_AVAILABLE": "resource already in use and simultaneous access not allowed or resource was removed",
    "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE": "external required dependency is unavailable or missing",
    "ZE_RESULT_WARNING_DROPPED_DATA": "data may have been dropped",
    "ZE_RESULT_ERROR_UNINITIALIZED": "driver is not initialized",
    "ZE_RESULT_ERROR_UNSUPPORTED_VERSION": "generic error code for unsupported versions",
    "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE": "generic error code for unsupported features",
    "ZE_RESULT_ERROR_INVALID_ARGUMENT": "generic error code for invalid arguments",
    "ZE_RESULT_ERROR_INVALID_NULL_HANDLE": "handle argument is not valid",
    "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE": "object pointed to by handle still in-use by device",
    "ZE_RESULT_ERROR_INVALID_NULL_POINTER": "pointer argument may not be nullptr",
    "ZE_RESULT_ERROR_INVALID_SIZE": "size argument is invalid (e.g., must not be zero)",
    "ZE_RESULT_ERROR_UNSUPPORTED_SIZE": "size argument is not supported by the device (e.g., too large)",
    "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT": "alignment argument is not supported by the device (e.g., too small)",
    "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT": "synchronization object in invalid state",
    "ZE_RESULT_ERROR_INVALID_ENUMERATION": "enumerator argument is not valid",
    "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION": "enumerator argument is not supported by the device",
    "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT": "image format is not supported by the device",
    "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY": "native binary is not supported by the device",
    "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME": "global variable is not found in the module",
    "ZE_RESULT_ERROR_INVALID_KERNEL_NAME": "kernel name is not found in the module",
    "ZE_RESULT_ERROR_INVALID_FUNCTION_NAME": "function name is not found in the module",
    "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION": "group size dimension is not valid for the kernel or device",
    "ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION": "global width dimension is not valid for the kernel or device",
    "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX": "kernel argument index is not valid for kernel",
    "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE": "kernel argument size does not match kernel",
    "ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE": "value of kernel attribute is not valid for the kernel or device",
    "ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED": "module with imports needs to be linked before kernels can be created from it",
    "ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE": "command list type does not match command queue type",
    "ZE_RESULT_ERROR_OVERLAPPING_REGIONS": "copy operations do not support overlapping regions of memory",
    "ZE_RESULT_WARNING_ACTION_REQUIRED": "an action is required to complete the desired operation",
    "ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE": "kernel handle is invalid for the operation",
    "ZE_RESULT_ERROR_UNKNOWN": "unknown or internal error",
}


# SYCL's Unified Runtime (libur_loader, libur_adapter_level_zero: the layer torch's XPU backend and IPEX run
# on) returns its own ur_result_t and prints it by name ("UR_RESULT_ERROR_DEVICE_LOST"); its Level Zero adapter
# turns Level Zero's codes into these. No wheel carries its header: the codes vLLM users paste, by hand.
UR_RESULTS = [
    [18, "UR_RESULT_ERROR_DEVICE_NOT_FOUND", "device not found"],
    [19, "UR_RESULT_ERROR_INVALID_DEVICE", "invalid device"],
    [20, "UR_RESULT_ERROR_DEVICE_LOST", "device hung, reset, was removed, or adapter update occurred"],
    [21, "UR_RESULT_ERROR_DEVICE_REQUIRES_RESET", "device requires a reset"],
    [37, "UR_RESULT_ERROR_UNINITIALIZED", "adapter is not initialized or specific entry-point is not implemented"],
    [38, "UR_RESULT_ERROR_OUT_OF_HOST_MEMORY", "insufficient host memory to satisfy call"],
    [39, "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "insufficient device memory to satisfy call"],
    [40, "UR_RESULT_ERROR_OUT_OF_RESOURCES", "out of resources"],
    [41, "UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE", "error occurred when building program, see build log for details"],
    [44, "UR_RESULT_ERROR_UNSUPPORTED_FEATURE", "generic error code for unsupported features"],
    [45, "UR_RESULT_ERROR_INVALID_ARGUMENT", "generic error code for invalid arguments"],
    [66, "UR_RESULT_ERROR_ADAPTER_SPECIFIC", "an adapter specific warning/error has been reported"],
    [69, "UR_RESULT_ERROR_DEVICE_NOT_AVAILABLE", "device is not available"],
    [0x7ffffffe, "UR_RESULT_ERROR_UNKNOWN", "unknown or internal error"],
]
UR_SOURCE = "https://github.com/intel/llvm/blob/sycl/unified-runtime/include/ur_api.h (ur_result_t), by hand"


def scan(source: str) -> list[list]:
    """[[number, name]] of the ZE_RESULT_* constants of a module, by number (the enum's upper bound
    ZE_RESULT_FORCE_UINT32 left out)."""
    return sorted([n, name] for name, n in int_constants(source, "ZE_RESULT_", frozenset({"ZE_RESULT_FORCE_UINT32"})).items())


def build(pypi: Packages) -> dict:
    """{"codes": [[number, name, meaning]], "ur": [[number, name, meaning]], "source": [...]}"""
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)
    rows = pypi.memo("level-zero-codes", wheel["filename"], lambda: scan(pypi.remote(wheel).texts([MODULE])[MODULE]))
    return {"codes": [[n, name, MEANING.get(name)] for n, name in rows], "ur": UR_RESULTS,
            "source": [f"{PROJECT}=={version} ({MODULE}: ze_result_t)", HEADER_SOURCE, UR_SOURCE]}
