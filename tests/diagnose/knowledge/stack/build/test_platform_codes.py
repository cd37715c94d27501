"""Intel's Level Zero results and AMD SMI's statuses read from small modules written here (no wheel):
pyzes' ZE_RESULT_* constants, amdsmi's AMDSMI_STATUS_* constants and the texts its exception gives,
and the statuses hsa_ext_amd.h adds to hsa_status_t."""

from bot.diagnose.knowledge.stack.build import amdsmi_codes, hip_codes, level_zero_codes
from bot.diagnose.knowledge.stack.build.module_constants import int_constants

PYZES = """
ze_result_t = c_int32
ZE_RESULT_SUCCESS = 0
ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001
ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001
ZE_RESULT_FORCE_UINT32 = 0x7FFFFFFF
ZES_ENGINE_GROUP_ALL = 0
"""
WRAPPER = """
AMDSMI_STATUS_SUCCESS = 0
AMDSMI_STATUS_DRM_ERROR = 6
AMDSMI_STATUS_DRIVER_NOT_LOADED = 34
amdsmi_status_t = ctypes.c_uint32 # enum
"""
EXCEPTION = """
class AmdSmiLibraryException(AmdSmiException):
    def set_err_info(self):
        switch = {
            amdsmi_wrapper.AMDSMI_STATUS_DRM_ERROR : "AMDSMI_STATUS_DRM_ERROR - Error when called libdrm",
            amdsmi_wrapper.AMDSMI_STATUS_DRIVER_NOT_LOADED : "AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded",
        }
"""
HSA_EXT = """
typedef struct hsa_amd_x_s { int y; } hsa_amd_x_t;
enum {
  /**
   * The memory pool is invalid.
   */
  HSA_STATUS_ERROR_INVALID_MEMORY_POOL = 40,

  /**
   * Agent accessed memory beyond the maximum legal address.
   */
  HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION = 41,
};
typedef enum { HSA_IOMMU_SUPPORT_NONE = 0 } hsa_amd_iommu_version_t;
"""


def test_level_zero_results_from_the_bindings_without_the_enums_bound():
    assert level_zero_codes.scan(PYZES) == [[0, "ZE_RESULT_SUCCESS"], [0x70000001, "ZE_RESULT_ERROR_DEVICE_LOST"],
                                            [0x78000001, "ZE_RESULT_ERROR_UNINITIALIZED"]]
    assert level_zero_codes.MEANING["ZE_RESULT_ERROR_DEVICE_LOST"].startswith("device hung, reset")


def test_amdsmi_statuses_with_the_text_its_exception_prints():
    assert int_constants(WRAPPER, "AMDSMI_STATUS_") == {"AMDSMI_STATUS_SUCCESS": 0, "AMDSMI_STATUS_DRM_ERROR": 6,
                                                          "AMDSMI_STATUS_DRIVER_NOT_LOADED": 34}
    assert amdsmi_codes.texts(EXCEPTION) == {"AMDSMI_STATUS_DRM_ERROR": "Error when called libdrm",
                                             "AMDSMI_STATUS_DRIVER_NOT_LOADED": "Driver not loaded"}


def test_hsa_statuses_amd_adds():
    assert hip_codes.hsa_ext_items(HSA_EXT) == [
        [40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL", "The memory pool is invalid"],
        [41, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "Agent accessed memory beyond the maximum legal address"],
    ]
    assert hip_codes.hsa_ext_items("enum { A = 1 };") == []
