"""ROCm's enums read from small headers written here (no wheel): HIP's `///<` docs and deprecated
aliases, HSA's hex statuses, HIP's version."""

from bot.diagnose.knowledge.stack.build import hip_codes

HIP = """
typedef enum __HIP_NODISCARD hipError_t {
  hipSuccess = 0,            ///< Successful completion.
  hipErrorOutOfMemory = 2,   ///< out of memory range.
  // Deprecated
  hipErrorMemoryAllocation = 2,  ///< Memory allocation error.
  hipErrorInvalidDevice = 101,         ///< DeviceID must be in range
                                       ///< from 0 to compute-devices.
  hipErrorNoBinaryForGpu = 209,
  hipErrorTbd                    ///< Marker that more error codes are needed.
} hipError_t;
"""
HSA = """
typedef enum {
  /**
   * The function has been executed successfully.
   */
  HSA_STATUS_SUCCESS = 0x0,
  /**
   * The HSA runtime failed to allocate the necessary resources.
   */
  HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008,
} hsa_status_t;
"""


def test_hip_enum_with_docs_and_deprecated_aliases():
    assert hip_codes.hip_items(HIP) == [
        [0, "hipSuccess", "Successful completion", False],
        [2, "hipErrorOutOfMemory", "out of memory range", False],
        [2, "hipErrorMemoryAllocation", "Memory allocation error", True],
        [101, "hipErrorInvalidDevice", "DeviceID must be in range from 0 to compute-devices", False],
        [209, "hipErrorNoBinaryForGpu", None, False],
    ]


def test_hsa_statuses_in_hex():
    assert hip_codes.hsa_items(HSA) == [
        [0, "HSA_STATUS_SUCCESS", "The function has been executed successfully"],
        [0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "The HSA runtime failed to allocate the necessary resources"],
    ]


def test_hip_version():
    assert hip_codes.hip_version("#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 1\n") == "7.1"
    assert hip_codes.hip_version("") is None
