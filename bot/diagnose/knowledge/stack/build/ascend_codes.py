"""Huawei Ascend's error codes, as torch_npu prints them under vLLM's Ascend plugin (vllm-ascend).

From the torch-npu wheel, the newest release on PyPI, which carries CANN's public headers for its C++
extensions and its own error module:
- ACL's codes: `aclError` values of acl/acl_base_rt.h (`static const int ACL_ERROR_INVALID_PARAM = 100000;`,
  named only) and the runtime's of acl/error_codes/rt_error_codes.h (`#define ACL_ERROR_RT_DEV_SETUP_ERROR
  507033 // device setup error`, with a one-line comment). torch_npu's check of an ACL call prints them as
  "NPU function error: <call>, error code is 507033"; CANN's own log as "runtime result = 107001".
- HCCL's `HcclResult` (hccl/hccl_types.h, `HCCL_E_PARA = 1, /**< parameter error */`): "HCCL function error:
  <call>, error code is 1".
- torch_npu's own codes (torch_npu/utils/_error_code.py): the sub-module (`_SubModuleID`: PTA = 0, DIST = 2)
  and the code (`ErrCode`: ACL = (100, "call acl api failed")) that make "ERR00100 PTA call acl api failed".

Read as text, never imported or loaded. CANN's "EI0006"/"EE9999"-style messages are not in any wheel
(they come from CANN's own error catalogue); the rules word the few users paste most by hand.
"""

from __future__ import annotations

import ast
import re

from .module_constants import class_members
from .packages import Packages

PROJECT = "torch-npu"
ACL_HEADER = "torch_npu/include/acl/acl_base_rt.h"
RT_HEADER = "torch_npu/include/acl/error_codes/rt_error_codes.h"
HCCL_HEADER = "torch_npu/include/third_party/hccl/inc/hccl/hccl_types.h"
ERROR_MODULE = "torch_npu/utils/_error_code.py"

_ACL_ITEM = re.compile(r"static\s+const\s+int\s+(ACL_ERROR_\w+)\s*=\s*(\d+)\s*;")
_RT_ITEM = re.compile(r"#define\s+(ACL_ERROR_\w+)\s+(\d+)[ \t]*(?://[ \t]*([^\n]*))?")
_HCCL_ENUM = re.compile(r"typedef\s+enum\s*\{(?P<body>[^}]*?HCCL_SUCCESS[^}]*)\}\s*HcclResult\s*;", re.S)
_HCCL_ITEM = re.compile(r"(HCCL_\w+)\s*=\s*(\d+)\s*,?[ \t]*(?:/\*\*<\s*(.*?)\s*\*/)?")


def acl_items(base: str, runtime: str) -> list[list]:
    """[[number, name, doc]] of ACL's codes, the runtime's (with their comment) over the base's."""
    rows = {int(n): [int(n), name, None] for name, n in _ACL_ITEM.findall(base)}
    for name, n, doc in _RT_ITEM.findall(runtime):
        rows[int(n)] = [int(n), name, doc.strip() or None]
    return [rows[n] for n in sorted(rows) if n != 0]


def hccl_items(header: str) -> list[list]:
    """[[number, name, doc]] of HcclResult."""
    m = _HCCL_ENUM.search(header)
    if not m:
        return []
    return [[int(n), name, doc or None] for name, n, doc in _HCCL_ITEM.findall(m.group("body"))]


def torch_npu_items(source: str) -> dict:
    """{"modules": [[number, name]], "codes": [[number, name, message]]} of torch_npu's error module."""
    tree = ast.parse(source)
    modules = [[v.value, k] for k, v in class_members(tree, "_SubModuleID").items()
               if isinstance(v, ast.Constant) and isinstance(v.value, int)]
    codes = []
    for name, v in class_members(tree, "ErrCode").items():
        if isinstance(v, ast.Tuple) and len(v.elts) == 2 and all(isinstance(e, ast.Constant) for e in v.elts):
            codes.append([v.elts[0].value, name, v.elts[1].value])
    return {"modules": sorted(modules), "codes": sorted(codes)}


def build(pypi: Packages) -> dict:
    """{"acl": [[number, name, doc]], "hccl": [[number, name, doc]], "torch_npu": {"modules", "codes"}, "source"}"""
    version = pypi.releases(PROJECT)[-1]
    wheel = pypi.wheel(PROJECT, version)

    def make():
        texts = pypi.remote(wheel).texts([ACL_HEADER, RT_HEADER, HCCL_HEADER, ERROR_MODULE])
        return {"acl": acl_items(texts[ACL_HEADER], texts[RT_HEADER]), "hccl": hccl_items(texts[HCCL_HEADER]),
                "torch_npu": torch_npu_items(texts[ERROR_MODULE])}

    facts = pypi.memo("ascend-codes", wheel["filename"], make)
    return {**facts, "source": [f"torch-npu=={version} ({ACL_HEADER}, {RT_HEADER}, {HCCL_HEADER}, {ERROR_MODULE})"]}
