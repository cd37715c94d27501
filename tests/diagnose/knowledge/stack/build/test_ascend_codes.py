"""Huawei Ascend's codes read from small texts written here in the form of the torch-npu wheel's files (no wheel):
ACL's base codes (acl_base_rt.h), the runtime's with their comments (rt_error_codes.h), HCCL's HcclResult
(hccl_types.h) and torch_npu's own sub-modules and codes (utils/_error_code.py)."""

from bot.diagnose.knowledge.stack.build import ascend_codes

ACL_BASE = """
static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_BAD_ALLOC = 200000;
"""
RT = """
#define  ACL_ERROR_RT_INVALID_DEVICEID           107001 // invalid device id
#define  ACL_ERROR_RT_DEV_SETUP_ERROR            507033 // device setup error
#define  ACL_ERROR_RT_NO_COMMENT                 507999
"""
HCCL = """
typedef enum {
    HCCL_SUCCESS = 0,               /**< success */
    HCCL_E_PARA = 1,                /**< parameter error */
    HCCL_E_NOT_SUPPORT = 5,         /**< not support feature */
    HCCL_E_RESERVED                 /**< reserved */
} HcclResult;

typedef enum {
    HCCL_REDUCE_SUM = 0,    /**< sum */
} HcclReduceOp;
"""
ERROR_MODULE = '''
from enum import Enum


class _SubModuleID(Enum):
    PTA = 0
    DIST = 2


class ErrCode(Enum):
    SUCCESS = (0, "success")
    ACL = (100, "call acl api failed")
    HCCL = (200, "call hccl api failed")

    @property
    def code(self):
        return self.value[0]
'''


def test_acl_codes_from_both_headers_with_the_runtimes_comments():
    assert ascend_codes.acl_items(ACL_BASE, RT) == [
        [100000, "ACL_ERROR_INVALID_PARAM", None], [107001, "ACL_ERROR_RT_INVALID_DEVICEID", "invalid device id"],
        [200000, "ACL_ERROR_BAD_ALLOC", None], [507033, "ACL_ERROR_RT_DEV_SETUP_ERROR", "device setup error"],
        [507999, "ACL_ERROR_RT_NO_COMMENT", None]]


def test_hccl_results_of_the_hcclresult_enum_only():
    assert ascend_codes.hccl_items(HCCL) == [[0, "HCCL_SUCCESS", "success"], [1, "HCCL_E_PARA", "parameter error"],
                                             [5, "HCCL_E_NOT_SUPPORT", "not support feature"]]


def test_torch_npu_sub_modules_and_codes_read_without_importing():
    assert ascend_codes.torch_npu_items(ERROR_MODULE) == {
        "modules": [[0, "PTA"], [2, "DIST"]],
        "codes": [[0, "SUCCESS", "success"], [100, "ACL", "call acl api failed"], [200, "HCCL", "call hccl api failed"]]}
