from bot.diagnose.knowledge.stack.build.module_constants import int_constants

SOURCE = '''
NVML_ERROR_UNKNOWN = 999
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_TEXT = "not a number"
NVML_SUCCESS = 0
NVML_ERROR_A = NVML_ERROR_B = 3
class X:
    NVML_ERROR_INSIDE = 7
def f():
    NVML_ERROR_LOCAL = 8
ZE_RESULT_FORCE_UINT32 = 0x7fffffff
'''


def test_top_level_int_constants_with_the_prefix_only():
    assert int_constants(SOURCE, "NVML_ERROR_") == {"NVML_ERROR_UNKNOWN": 999, "NVML_ERROR_NOT_FOUND": 6}


def test_names_left_out():
    assert int_constants(SOURCE, "ZE_RESULT_", frozenset({"ZE_RESULT_FORCE_UINT32"})) == {}
    assert int_constants(SOURCE, "ZE_RESULT_") == {"ZE_RESULT_FORCE_UINT32": 0x7fffffff}
